import { AgencyError } from '../../core/errors.ts';
import type { Tool } from '../define-tool.ts';
import type { PathRoot } from '../guards/path-roots.ts';
import { type SandboxChoice, resolveSandbox } from './exec-options.ts';
import { createFileGlobTool, type FileGlobToolOptions } from './file-glob.ts';
import { createFsReadTool, type FsReadToolOptions } from './fs-read.ts';
import { createFsWriteTool, type FsWriteToolOptions } from './fs-write.ts';
import { createHttpFetchTool } from './http-fetch.ts';
import { createHttpPostTool, type HttpPostToolOptions } from './http-post.ts';
import { createJsonValidateTool, type JsonValidateToolOptions } from './json-validate.ts';
import { createKvTool, type KvToolOptions } from './kv.ts';
import { createLinksCheckTool, type LinksCheckToolOptions } from './links-check.ts';
import type { NetworkToolOptions } from './network-options.ts';
import { createSandboxExecTool, type SandboxExecToolOptions } from './sandbox-exec.ts';
import { createSqlTool, type SqlToolOptions } from './sql.ts';
import { createTestRunnerTool, type TestRunnerToolOptions } from './test-runner.ts';

/** Per-tool limits for {@link builtinTools}, keyed by tool name. */
export type BuiltinToolLimits = {
  fs_read?: Omit<FsReadToolOptions, 'roots'>;
  file_glob?: Omit<FileGlobToolOptions, 'roots'>;
  fs_write?: Omit<FsWriteToolOptions, 'roots'>;
  json_validate?: Omit<JsonValidateToolOptions, 'roots'>;
  http_post?: Pick<HttpPostToolOptions, 'maxRequestBytes'>;
  links_check?: Pick<LinksCheckToolOptions, 'maxUrls' | 'concurrency'>;
};

/**
 * Options for {@link builtinTools}. Each group of tools is included only when its option is set, except
 * `json_validate`, which is always included (it reads files only when `readRoots` are set).
 */
export type BuiltinToolsOptions = {
  /** Directories `fs_read`, `file_glob` and `json_validate` may read. Includes `fs_read` and `file_glob`. */
  readRoots?: readonly PathRoot[];
  /** Directories `fs_write` may write. Includes `fs_write`. */
  writeRoots?: readonly PathRoot[];
  /** The network guard's policy and response limits. Includes `http_fetch`, `http_post` and `links_check`. */
  network?: NetworkToolOptions;
  /** Where `sandbox_exec` and `test_runner` run commands; one sandbox is shared by both. @default 'bwrap' */
  sandbox?: SandboxChoice;
  /** Includes `sandbox_exec`. */
  exec?: Omit<SandboxExecToolOptions, 'sandbox'>;
  /** Includes `test_runner`. Its workdir defaults to `exec.workdir`. */
  testRunner?: Omit<TestRunnerToolOptions, 'sandbox' | 'workdir'> & { workdir?: string };
  /** Includes `kv`. */
  kv?: KvToolOptions;
  /** Includes `sql`. */
  sql?: SqlToolOptions;
  limits?: BuiltinToolLimits;
};

/**
 * The built-in tools for the options given, sorted by name. Every file tool goes through the path guard, every
 * network tool through the network guard, and every command through the sandbox. See docs/tools.md.
 *
 * @example
 * const tools = builtinTools({
 *   readRoots: ['/srv/docs'],
 *   network: { policy: { allow: ['127.0.0.1:8080'] } },
 *   exec: { workdir: '/srv/agency/work' },
 * });
 */
export function builtinTools(options: BuiltinToolsOptions = {}): Tool[] {
  const { readRoots, writeRoots, network, exec, testRunner, kv, sql, limits = {} } = options;
  const tools: Tool[] = [];
  const add = (tool: Tool) => tools.push(tool);
  if (readRoots) {
    add(createFsReadTool({ ...limits.fs_read, roots: readRoots }));
    add(createFileGlobTool({ ...limits.file_glob, roots: readRoots }));
  }
  add(createJsonValidateTool({ ...limits.json_validate, ...(readRoots ? { roots: readRoots } : {}) }));
  if (writeRoots) add(createFsWriteTool({ ...limits.fs_write, roots: writeRoots }));
  if (network) {
    add(createHttpFetchTool(network));
    add(createHttpPostTool({ ...network, ...limits.http_post }));
    add(createLinksCheckTool({ ...network, ...limits.links_check }));
  }
  if (exec || testRunner) {
    const sandbox = resolveSandbox(options.sandbox, exec?.logger ?? testRunner?.logger);
    if (exec) add(createSandboxExecTool({ ...exec, sandbox }));
    if (testRunner) {
      const workdir = testRunner.workdir ?? exec?.workdir;
      if (workdir === undefined) throw missingWorkdir();
      add(createTestRunnerTool({ ...testRunner, workdir, sandbox }));
    }
  }
  if (kv) add(createKvTool(kv));
  if (sql) add(createSqlTool(sql));
  return tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function missingWorkdir(): AgencyError {
  return new AgencyError('invalid_argument', 'builtinTools: testRunner needs a workdir, or exec.workdir to share', {
    details: { field: 'testRunner.workdir' },
  });
}
