// Where the executors' end-to-end tests find the real agent CLIs: CLAUDE_BIN / CODEX_BIN, else what
// scripts/ensure-agent-clis.sh installed (AGENCY_TOOLS_DIR, default .agency-tools/). When neither is there the tests
// skip, and say why: the script's own reason when it could not install the CLI.
import { accessSync, constants, readFileSync } from 'node:fs';
import { join } from 'node:path';

const TOOLS = process.env['AGENCY_TOOLS_DIR'] ?? join(import.meta.dirname, '../../.agency-tools');
const VARIABLES = { claude: 'CLAUDE_BIN', codex: 'CODEX_BIN' } as const;

/** The CLI's path, or why it is not there. */
export function findAgentCli(cli: 'claude' | 'codex'): { bin: string } | { skip: string } {
  const explicit = process.env[VARIABLES[cli]];
  if (explicit) return { bin: explicit };
  const bin = join(TOOLS, 'node_modules', '.bin', cli);
  try {
    accessSync(bin, constants.X_OK);
    return { bin };
  } catch {
    let status = '';
    try {
      status = readFileSync(join(TOOLS, 'status', cli), 'utf8').trim();
    } catch {
      // The script never ran here.
    }
    const why = status.startsWith('failed') ? status : 'not installed';
    return { skip: `${cli} ${why}; run \`bash scripts/ensure-agent-clis.sh\` or set ${VARIABLES[cli]}` };
  }
}
