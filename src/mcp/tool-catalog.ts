import type { Tool as McpToolDescriptor } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../core/errors.ts';
import type { Tool, ToolEffect } from '../tools/define-tool.ts';
import type { JsonSchemaCompiler } from './json-schema-input.ts';
import { createMcpTool, type McpCallFunction } from './mcp-tool.ts';
import { assignToolNames } from './tool-names.ts';

/** Per-tool settings, keyed by the server's own tool name. */
export type McpToolOverride = {
  effects?: ToolEffect;
  timeoutMs?: number;
  /** @default true when effects is `read` */
  idempotent?: boolean;
  /** `false` hides the tool from agency entirely. @default true */
  enabled?: boolean;
};

/** A tool the server lists that agency does not expose, and why. */
export type SkippedMcpTool = { name: string; reason: string };

/** The agency tools of one server, rebuilt from each `tools/list`. */
export type ToolCatalog = {
  tools(): readonly Tool[];
  skipped(): readonly SkippedMcpTool[];
  /** Replaces the tool list. Unchanged tools keep their `Tool` object and compiled validator. */
  update(descriptors: readonly McpToolDescriptor[]): { changed: boolean };
};

/** Creates an empty catalog for one server. */
export function createToolCatalog(options: {
  server: string;
  effects: ToolEffect;
  timeoutMs: number;
  overrides: Readonly<Record<string, McpToolOverride>>;
  compiler: JsonSchemaCompiler;
  call: McpCallFunction;
}): ToolCatalog {
  const { server, effects, timeoutMs, overrides, compiler, call } = options;
  let tools: readonly Tool[] = Object.freeze([]);
  let skipped: readonly SkippedMcpTool[] = Object.freeze([]);
  let built = new Map<string, Tool>();

  const update = (descriptors: readonly McpToolDescriptor[]) => {
    const nextSkipped: SkippedMcpTool[] = [];
    const usable = new Map<string, McpToolDescriptor>();
    for (const descriptor of descriptors) {
      const reason = unusable(descriptor, usable, overrides);
      if (reason) nextSkipped.push({ name: descriptor.name, reason });
      else usable.set(descriptor.name, descriptor);
    }
    const names = assignToolNames(server, [...usable.keys()]);
    const next = new Map<string, Tool>();
    for (const descriptor of usable.values()) {
      const agencyName = names.get(descriptor.name);
      if (agencyName === undefined) {
        nextSkipped.push({ name: descriptor.name, reason: 'its namespaced name collides with another tool' });
        continue;
      }
      const key = JSON.stringify([
        agencyName,
        descriptor.name,
        descriptor.title,
        descriptor.description,
        descriptor.inputSchema,
      ]);
      const existing = built.get(key);
      if (existing) {
        next.set(key, existing);
        continue;
      }
      const override = (Object.hasOwn(overrides, descriptor.name) && overrides[descriptor.name]) || {};
      const toolEffects = override.effects ?? effects;
      try {
        const settings = {
          effects: toolEffects,
          timeoutMs: override.timeoutMs ?? timeoutMs,
          idempotent: override.idempotent ?? toolEffects === 'read',
        };
        next.set(key, createMcpTool({ server, agencyName, descriptor, settings, compiler, call }));
      } catch (error) {
        nextSkipped.push({ name: descriptor.name, reason: errorMessage(error) });
      }
    }
    const changed = !sameKeys(built, next);
    built = next;
    tools = Object.freeze([...next.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)));
    skipped = Object.freeze(nextSkipped);
    return { changed };
  };

  return { tools: () => tools, skipped: () => skipped, update };
}

function unusable(
  descriptor: McpToolDescriptor,
  usable: ReadonlyMap<string, McpToolDescriptor>,
  overrides: Readonly<Record<string, McpToolOverride>>,
): string | undefined {
  if (usable.has(descriptor.name)) return 'the server lists it twice';
  if (Object.hasOwn(overrides, descriptor.name) && overrides[descriptor.name]?.enabled === false) {
    return 'disabled in the connection options';
  }
  if (descriptor.execution?.taskSupport === 'required') {
    return 'it only runs as an MCP task, which this client does not support';
  }
  const schema = descriptor.inputSchema as { type?: unknown } | undefined;
  if (typeof schema !== 'object' || schema === null || schema.type !== 'object') {
    return 'its input schema is not an object schema';
  }
  return undefined;
}

function sameKeys(a: ReadonlyMap<string, unknown>, b: ReadonlyMap<string, unknown>): boolean {
  if (a.size !== b.size) return false;
  for (const key of a.keys()) if (!b.has(key)) return false;
  return true;
}
