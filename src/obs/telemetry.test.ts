import type { LanguageModelV4 } from '@ai-sdk/provider';
import { metrics, trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { installTelemetry } from '../../test/support/telemetry.ts';
import { LLMAgent } from '../agent/llm-agent.ts';
import { ScriptedModel } from '../testing/scripted-model.ts';
import { genAiMessages } from './genai-messages.ts';
import { metering } from './metrics.ts';
import { providerName } from './model-span.ts';
import { tracing } from './telemetry.ts';

describe('without a registered provider', () => {
  it('records nothing and reports tracing and metering off; registering turns them on, and off again', async () => {
    expect([tracing(), metering()]).toEqual([false, false]);
    const result = await new LLMAgent({ name: 'quiet', model: new ScriptedModel(['ok']) }).execute({ input: 'hi' });
    expect(result.output).toBe('ok');

    const telemetry = installTelemetry();
    try {
      expect([tracing(), metering()]).toEqual([true, true]);
      await new LLMAgent({ name: 'loud', model: new ScriptedModel(['ok']) }).execute({ input: 'hi' });
      expect(telemetry.spans().map((span) => span.name)).toEqual(['chat scripted-model', 'invoke_agent loud']);
    } finally {
      await telemetry.uninstall();
    }
    expect([tracing(), metering()]).toEqual([false, false]);
    expect(trace.getTracerProvider().getTracer('x').startSpan('y').isRecording()).toBe(false);
    expect(metrics.getMeterProvider()).toBeDefined();
  });
});

describe('providerName', () => {
  const model = (provider: string) => ({ provider, modelId: 'm' }) as LanguageModelV4;
  it.each([
    ['openai.chat', 'openai'],
    ['openai.responses', 'openai'],
    ['anthropic.messages', 'anthropic'],
    ['google.generative-ai', 'gcp.gemini'],
    ['google.vertex.chat', 'gcp.vertex_ai'],
    ['amazon-bedrock', 'aws.bedrock'],
    ['azure-openai.chat', 'azure-openai'],
    ['mistral.chat', 'mistral_ai'],
    ['xai.chat', 'x_ai'],
    ['Scripted', 'scripted'],
    ['', ''],
  ])('%s → %s', (provider, name) => {
    expect(providerName(model(provider))).toBe(name);
  });
});

describe('genAiMessages', () => {
  it('names files and unknown parts by type without their bytes, and leaves system messages out', () => {
    const messages = genAiMessages([
      { role: 'system', content: 'persona' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'file', mediaType: 'image/png', data: { type: 'data', data: 'iVBORw0KGgoAAAANSUhEUg==' } },
        ],
      },
    ]);
    expect(messages).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'look' }, { type: 'file' }] }]);
    expect(JSON.stringify(messages)).not.toContain('iVBOR');
  });
});
