import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { CONTRACT_SCHEMAS, contractJsonSchema } from '../../src/task/contracts/json-schemas.ts';
import { createRunner } from '../../src/task/runner.ts';
import { fixtureTools, makeTaskFolder, phaseModel } from '../support/governed-fixture.ts';

const docs = join(import.meta.dirname, '../../docs/schemas');
type SchemaName = keyof typeof CONTRACT_SCHEMAS;

describe('the published JSON Schemas of the on-disk contracts', () => {
  it.each(Object.keys(CONTRACT_SCHEMAS))(
    'docs/schemas/%s is current (regenerate with node scripts/generate-schemas.ts)',
    async (name) => {
      expect(JSON.parse(await readFile(join(docs, name), 'utf8'))).toEqual(contractJsonSchema(name as SchemaName));
    },
  );

  it('validate every file of a real run, with a JSON Schema validator rather than zod', async () => {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    const validator = async (name: SchemaName) => ajv.compile(JSON.parse(await readFile(join(docs, name), 'utf8')));
    const check = async (name: SchemaName, values: unknown[]) => {
      const validate = await validator(name);
      for (const value of values) {
        expect(validate(value), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
      }
      expect(values.length).toBeGreaterThan(0);
    };
    const root = await makeTaskFolder();
    await createRunner({ model: phaseModel(), tools: (paths) => fixtureTools(paths), approvals: 'auto' }).doTask(root, {
      approvals: { requireTools: ['write_artifact'] },
    });
    const progress = join(root, 'progress');
    const read = async (path: string) => JSON.parse(await readFile(path, 'utf8')) as unknown;
    const dir = async (path: string) => Promise.all((await readdir(path)).map((file) => read(join(path, file))));
    const events = (await readFile(join(progress, 'events.ndjson'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    await check('agent.events.v1.schema.json', events);
    await check('agent.state.v1.schema.json', [await read(join(progress, 'state.json'))]);
    await check('task.spec.v1.schema.json', [await read(join(progress, 'spec.json'))]);
    await check('plan.v1.schema.json', await dir(join(progress, 'plan')));
    await check('approval-request.v1.schema.json', await dir(join(progress, 'approvals', 'requests')));
    await check('approval-decision.v1.schema.json', await dir(join(progress, 'approvals', 'decisions')));
    await check('verify.v1.schema.json', await dir(join(progress, 'verify')));
  });

  it('reject a malformed frame', async () => {
    const ajv = new Ajv2020({ strict: false });
    const validate = ajv.compile(JSON.parse(await readFile(join(docs, 'agent.events.v1.schema.json'), 'utf8')));
    expect(validate({ version: 'agent.events.v1', id: 'evt_x', seq: 0, ts: 'now', type: 'nope' })).toBe(false);
  });
});
