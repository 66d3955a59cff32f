// The JSON objects the fake GitHub answers with, in the shapes of GitHub's published schemas (simple-user, issue,
// issue-comment, reaction, pull-request, pull-request-review…): every field the schemas require, with plausible
// values. The fake checks each answer against the schemas, so a field missing here fails a test.

/** Where the fake is: its API origin and the repository it serves. */
export type Site = { api: string; html: string; owner: string; repo: string };

/** A user of the fake. */
export type FakeUser = { id: number; login: string; name: string | null };

const nodeId = (kind: string, id: number) => Buffer.from(`${kind}:${id}`).toString('base64url');

/** GitHub's `simple-user`. */
export function simpleUser(site: Site, user: FakeUser) {
  const url = `${site.api}/users/${user.login}`;
  return {
    login: user.login,
    id: user.id,
    node_id: nodeId('User', user.id),
    avatar_url: `${site.html}/avatars/${user.id}`,
    gravatar_id: '',
    url,
    html_url: `${site.html}/${user.login}`,
    followers_url: `${url}/followers`,
    following_url: `${url}/following{/other_user}`,
    gists_url: `${url}/gists{/gist_id}`,
    starred_url: `${url}/starred{/owner}{/repo}`,
    subscriptions_url: `${url}/subscriptions`,
    organizations_url: `${url}/orgs`,
    repos_url: `${url}/repos`,
    events_url: `${url}/events{/privacy}`,
    received_events_url: `${url}/received_events`,
    type: 'User',
    site_admin: false,
  };
}

/** GitHub's `public-user`, as `GET /user` answers for a token without private scopes. */
export function publicUser(site: Site, user: FakeUser, createdAt: string) {
  return {
    ...simpleUser(site, user),
    name: user.name,
    company: null,
    blog: '',
    location: null,
    email: null,
    hireable: null,
    bio: null,
    public_repos: 1,
    public_gists: 0,
    followers: 0,
    following: 0,
    created_at: createdAt,
    updated_at: createdAt,
  };
}

/** GitHub's `repository`, as pull requests embed it. */
export function repository(site: Site, owner: FakeUser) {
  const url = `${site.api}/repos/${site.owner}/${site.repo}`;
  const html = `${site.html}/${site.owner}/${site.repo}`;
  const templated = (name: string, suffix: string) => [`${name}_url`, `${url}/${suffix}`] as const;
  return {
    id: 1,
    node_id: nodeId('Repository', 1),
    name: site.repo,
    full_name: `${site.owner}/${site.repo}`,
    license: null,
    forks: 0,
    owner: simpleUser(site, owner),
    private: false,
    html_url: html,
    description: null,
    fork: false,
    url,
    ...Object.fromEntries(
      [
        templated('archive', '{archive_format}{/ref}'),
        templated('assignees', 'assignees{/user}'),
        templated('blobs', 'git/blobs{/sha}'),
        templated('branches', 'branches{/branch}'),
        templated('collaborators', 'collaborators{/collaborator}'),
        templated('comments', 'comments{/number}'),
        templated('commits', 'commits{/sha}'),
        templated('compare', 'compare/{base}...{head}'),
        templated('contents', 'contents/{+path}'),
        templated('contributors', 'contributors'),
        templated('deployments', 'deployments'),
        templated('downloads', 'downloads'),
        templated('events', 'events'),
        templated('forks', 'forks'),
        templated('git_commits', 'git/commits{/sha}'),
        templated('git_refs', 'git/refs{/sha}'),
        templated('git_tags', 'git/tags{/sha}'),
        templated('issue_comment', 'issues/comments{/number}'),
        templated('issue_events', 'issues/events{/number}'),
        templated('issues', 'issues{/number}'),
        templated('keys', 'keys{/key_id}'),
        templated('labels', 'labels{/name}'),
        templated('languages', 'languages'),
        templated('merges', 'merges'),
        templated('milestones', 'milestones{/number}'),
        templated('notifications', 'notifications{?since,all,participating}'),
        templated('pulls', 'pulls{/number}'),
        templated('releases', 'releases{/id}'),
        templated('stargazers', 'stargazers'),
        templated('statuses', 'statuses/{sha}'),
        templated('subscribers', 'subscribers'),
        templated('subscription', 'subscription'),
        templated('tags', 'tags'),
        templated('teams', 'teams'),
        templated('trees', 'git/trees{/sha}'),
        templated('hooks', 'hooks'),
      ].map(([key, value]) => [key, value]),
    ),
    git_url: `git://example.invalid/${site.owner}/${site.repo}.git`,
    ssh_url: `git@example.invalid:${site.owner}/${site.repo}.git`,
    clone_url: `${html}.git`,
    svn_url: html,
    mirror_url: null,
    homepage: null,
    language: null,
    forks_count: 0,
    stargazers_count: 0,
    watchers_count: 0,
    watchers: 0,
    size: 1,
    default_branch: 'main',
    open_issues_count: 0,
    open_issues: 0,
    has_issues: true,
    has_projects: false,
    has_wiki: false,
    has_pages: false,
    has_downloads: false,
    archived: false,
    disabled: false,
    pushed_at: null,
    created_at: null,
    updated_at: null,
  };
}

/** The reaction counts GitHub embeds in issues and comments. */
export function reactionRollup(url: string, contents: readonly string[]) {
  const count = (content: string) => contents.filter((c) => c === content).length;
  return {
    url,
    total_count: contents.length,
    '+1': count('+1'),
    '-1': count('-1'),
    laugh: count('laugh'),
    confused: count('confused'),
    heart: count('heart'),
    hooray: count('hooray'),
    eyes: count('eyes'),
    rocket: count('rocket'),
  };
}

export { nodeId };
