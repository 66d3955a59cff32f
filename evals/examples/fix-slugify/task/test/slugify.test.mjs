import assert from 'node:assert/strict';
import { test } from 'node:test';
import { slugify } from '../src/slugify.mjs';

test('joins words with hyphens', () => {
  assert.equal(slugify('Hello World'), 'hello-world');
});

test('collapses and trims whitespace', () => {
  assert.equal(slugify('  Hello   World  '), 'hello-world');
});

test('drops accents and punctuation', () => {
  assert.equal(slugify('Crème Brûlée, Again!'), 'creme-brulee-again');
});
