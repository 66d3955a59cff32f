import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { AgencyError } from '../../../core/errors.ts';
import { type CliInstall, resolveCli } from '../cli/resolve-cli.ts';

// The npm package's launcher (bin/codex.js) finds its native binary in a platform package, as this does.
const TARGETS: Record<string, { triple: string; package: string }> = {
  'linux-x64': { triple: 'x86_64-unknown-linux-musl', package: '@openai/codex-linux-x64' },
  'linux-arm64': { triple: 'aarch64-unknown-linux-musl', package: '@openai/codex-linux-arm64' },
};

/**
 * Codex's native binary for a found `codex`. The npm package's `codex` is a Node launcher that execs the binary from
 * its platform package (`@openai/codex-linux-x64`); running the binary directly spares the sandbox a Node and binds
 * the platform package, where the binary's resources (`codex-resources`, `codex-path`) live. A native `codex` is
 * returned as it is.
 */
export function locateCodex(found: CliInstall, { platform = process.platform, arch = process.arch } = {}): CliInstall {
  if (!found.file.endsWith('/@openai/codex/bin/codex.js')) return found;
  const target = TARGETS[`${platform}-${arch}`];
  if (target === undefined) {
    throw new AgencyError('invalid_config', `Codex has no native binary for ${platform}-${arch} that agency knows.`);
  }
  let vendor: string;
  try {
    vendor = join(dirname(createRequire(found.file).resolve(`${target.package}/package.json`)), 'vendor');
  } catch {
    vendor = join(dirname(found.file), '..', 'vendor');
  }
  const binary = join(vendor, target.triple, 'bin', 'codex');
  if (!existsSync(binary)) {
    throw new AgencyError(
      'invalid_config',
      `Codex's native binary is missing (${binary}): ${target.package} did not install. Fix: reinstall @openai/codex ` +
        '(`bash scripts/ensure-agent-clis.sh`), or set CODEX_BIN to the native binary.',
    );
  }
  return resolveCli({ name: 'codex', bin: binary, envVar: 'CODEX_BIN' });
}
