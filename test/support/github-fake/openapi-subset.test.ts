// The committed subset of GitHub's OpenAPI description is exactly what the extractor takes from the installed
// `@octokit/openapi`: a newer description, or a hand edit of the subset, fails here until it is extracted again.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import {
  extractSubset,
  formatSubset,
  GITHUB_OPERATIONS,
  loadPublished,
  SUBSET_FILE,
} from '../../../scripts/extract-github-openapi.mjs';
import { loadOpenApiSubset } from './openapi-subset.ts';

it('matches the published description, operation by operation', () => {
  const { spec, version } = loadPublished();
  const extracted = formatSubset(extractSubset(spec, version));
  const committed = readFileSync(SUBSET_FILE, 'utf8');
  expect(JSON.parse(committed)).toEqual(JSON.parse(extracted));
  expect(committed).toBe(extracted);
  expect(Object.keys(JSON.parse(committed).operations)).toEqual(GITHUB_OPERATIONS);
});

it('compiles every operation of the subset, and checks bodies against it', () => {
  const operations = loadOpenApiSubset();
  expect([...operations.keys()]).toEqual(GITHUB_OPERATIONS);
  const react = operations.get('reactions/create-for-issue')!;
  expect(react.checkBody({ content: 'eyes' })).toEqual([]);
  expect(react.checkBody({ content: 'eye' })).toEqual(['/content must be equal to one of the allowed values']);
  expect(react.checkAnswer(201, { id: 1 })).not.toEqual([]);
  expect(react.checkAnswer(503, { message: 'down', documentation_url: 'x' })).toEqual([]);
});
