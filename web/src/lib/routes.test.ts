import { describe, expect, it } from 'vitest';
import { matchRoute, taskPath } from './routes.ts';

describe('matchRoute', () => {
  it('maps paths to pages', () => {
    expect(matchRoute('/')).toEqual({ page: 'tasks' });
    expect(matchRoute('/tasks/')).toEqual({ page: 'tasks' });
    expect(matchRoute('/approvals')).toEqual({ page: 'approvals' });
    expect(matchRoute('/new')).toEqual({ page: 'new' });
    expect(matchRoute('/fleet/')).toEqual({ page: 'fleet' });
    expect(matchRoute(taskPath('task_01ABC'))).toEqual({ page: 'task', id: 'task_01ABC' });
    expect(matchRoute('/tasks/a/b')).toEqual({ page: 'not_found', path: '/tasks/a/b' });
  });
});
