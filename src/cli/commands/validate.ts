import { relative } from 'node:path';
import { agencyRoot, agencyRootAt } from '../../config/agency-root.ts';
import { checkAllConfigs, checkConfigFile, type ConfigCheck } from '../../config/validate-configs.ts';
import { EXIT } from '../exit-codes.ts';
import type { Output } from '../render.ts';
import { readYamlConfig } from '../../config/yaml-file.ts';
import type { DirectorKindCheck } from '../../config/validate-configs.ts';
import { directorTypes, loadDirectorKind } from '../../fleet/directors/kinds.ts';

// A director that `agency director` runs is checked with its kind's own schema as well.
const checkKind: DirectorKindCheck = async (file, type) => {
  if (!directorTypes().includes(type)) return;
  const kind = await loadDirectorKind(type, file);
  await readYamlConfig(file, kind.configSchema, 'docs/directors.md describes it');
};

/** Options of `agency validate`. */
export type ValidateOptions = { all?: boolean; root?: string };

/**
 * `agency validate <file>` and `agency validate --all`: checks configs as their components would at start-up,
 * printing `ok` and a summary per valid file, and each problem (file, line, field, fix) per invalid one. Exit 0 when
 * every file is valid, 2 otherwise.
 */
export async function validateCommand(file: string | undefined, options: ValidateOptions, out: Output, err: Output) {
  const root = options.root ? agencyRootAt(options.root) : agencyRoot();
  if ((file === undefined) === (options.all !== true)) {
    err.write('agency validate: give one config file, or --all for every config under the data root\n');
    return EXIT.usage;
  }
  const checks =
    file !== undefined ? [await checkConfigFile(file, root, checkKind)] : await checkAllConfigs(root, checkKind);
  if (checks.length === 0) {
    out.write(`No configs under ${root.agents} or ${root.directors}\n`);
    return EXIT.ok;
  }
  for (const check of checks) write(check, root.root, out, err);
  const invalid = checks.filter((check) => check.problems.length > 0).length;
  if (checks.length > 1) out.write(`${checks.length - invalid} valid, ${invalid} invalid (data root ${root.root})\n`);
  return invalid === 0 ? EXIT.ok : EXIT.usage;
}

function write(check: ConfigCheck, base: string, out: Output, err: Output): void {
  const shown = check.file.startsWith(`${base}/`) ? relative(base, check.file) : check.file;
  if (check.problems.length === 0) {
    out.write(`ok       ${shown}: ${check.summary}\n`);
    return;
  }
  err.write(`invalid  ${shown} (${check.kind}):\n`);
  for (const problem of check.problems) err.write(`  ${problem}\n`);
}
