import { describe, expect, it } from 'vitest';
import { AgencyError } from '../../core/errors.ts';
import { createRedactor } from '../../core/redact.ts';
import { checkTaskEnv, executorEnv } from './executor-env.ts';

const config = {
  credentials: { 'anthropic-key': 'ANTHROPIC_API_KEY' },
  env: { ANTHROPIC_BASE_URL: 'http://127.0.0.1:8080', GIT_AUTHOR_NAME: 'Review Agent' },
};

function refusal(name: string): string | undefined {
  try {
    checkTaskEnv({ [name]: 'value' }, config, createRedactor());
    return undefined;
  } catch (error) {
    expect(AgencyError.hasCode(error, 'invalid_argument')).toBe(true);
    expect((error as AgencyError).details).toEqual({ field: `env.${name}` });
    return (error as AgencyError).message;
  }
}

describe("a task's env", () => {
  it.each([
    ['ANTHROPIC_API_KEY', "is a credential's variable"],
    ['ANTHROPIC_BASE_URL', "is set by the worker's config (env)"],
    ['GIT_AUTHOR_NAME', "is set by the worker's config (env)"],
    ['HOME', 'is set by the worker'],
    ['LD_PRELOAD', 'is set by the worker, or would run code outside the sandbox'],
  ])('refuses %s: it %s', (name, why) => {
    const message = refusal(name);
    expect(message?.startsWith(`env.${name}: ${why}`), message).toBe(true);
  });

  // Each of these would send the executor's key or token to a server of the task's choosing.
  it.each([
    'OPENAI_BASE_URL',
    'ANTHROPIC_BEDROCK_BASE_URL',
    'CLAUDE_CODE_API_BASE_URL',
    'ANTHROPIC_API_HOST',
    'GH_HOST',
    'GITHUB_API_URL',
    'PGHOST',
    'VAULT_ADDR',
    'OTEL_EXPORTER_OTLP_ENDPOINT',
    'AWS_ENDPOINT_URL',
    'NPM_CONFIG_REGISTRY',
    'HTTPS_PROXY',
    'HTTP_PROXY',
    'ALL_PROXY',
    'NO_PROXY',
    'NODE_USE_ENV_PROXY',
    'NODE_TLS_REJECT_UNAUTHORIZED',
    'NODE_EXTRA_CA_CERTS',
    'SSL_CERT_FILE',
    'SSL_CERT_DIR',
    'REQUESTS_CA_BUNDLE',
    'GIT_SSL_CAINFO',
    'GIT_SSL_NO_VERIFY',
  ])('refuses %s, which steers where the executor connects or whom it trusts', (name) => {
    expect(refusal(name)).toBe(
      `env.${name}: decides where the executor connects or which servers it trusts, so a task could send the ` +
        "worker's credentials elsewhere; set it in the worker's config (env) instead",
    );
  });

  it('takes other variables, and registers secret-looking values with the redactor', () => {
    const redactor = createRedactor();
    const env = { DEPLOY_TOKEN: 'tok-0123456789abcdef', GIT_AUTHOR_EMAIL: 'agent@example.com', FEATURE_FLAG: 'on' };
    checkTaskEnv(env, config, redactor);
    expect(redactor.redactText('tok-0123456789abcdef agent@example.com')).toBe('[REDACTED] agent@example.com');
  });
});

describe("the executor's environment", () => {
  it("is PATH, the locale and HOME from the worker, then the config's env, the task's, the credentials", () => {
    const env = executorEnv({
      hostEnv: { PATH: '/usr/bin', LANG: 'C.UTF-8', SECRET: 'kept out', TZ: undefined },
      home: '/w/home',
      configEnv: { ANTHROPIC_BASE_URL: 'http://127.0.0.1:8080' },
      taskEnv: { FEATURE_FLAG: 'on' },
      credentials: { ANTHROPIC_API_KEY: 'sk-ant-x' },
    });
    expect(env).toEqual({
      PATH: '/usr/bin',
      LANG: 'C.UTF-8',
      HOME: '/w/home',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:8080',
      FEATURE_FLAG: 'on',
      ANTHROPIC_API_KEY: 'sk-ant-x',
    });
  });
});
