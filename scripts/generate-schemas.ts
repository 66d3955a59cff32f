// Writes the JSON Schemas of agency's on-disk contracts to docs/schemas/. Run after changing a contract:
//   node scripts/generate-schemas.ts
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONTRACT_SCHEMAS, contractJsonSchema } from '../src/task/contracts/json-schemas.ts';

const dir = join(import.meta.dirname, '..', 'docs', 'schemas');
for (const name of Object.keys(CONTRACT_SCHEMAS) as Array<keyof typeof CONTRACT_SCHEMAS>) {
  writeFileSync(join(dir, name), `${JSON.stringify(contractJsonSchema(name), null, 2)}\n`);
  console.log(`wrote docs/schemas/${name}`);
}
