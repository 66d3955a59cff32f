import type { LanguageModelV4 } from '@ai-sdk/provider';

/**
 * A model whose real implementation is built on its first call: `resolveModel` uses it so that resolving a spec
 * imports no provider package, and `import 'agency'` loads none. `provider` and `modelId` are known up front, as
 * the real model reports them, so pricing and messages name the model before it has loaded.
 */
export function lazyModel(provider: string, modelId: string, load: () => Promise<LanguageModelV4>): LanguageModelV4 {
  let loading: Promise<LanguageModelV4> | undefined;
  const real = () => (loading ??= load());
  return {
    specificationVersion: 'v4',
    provider,
    modelId,
    get supportedUrls() {
      return real().then((model) => model.supportedUrls);
    },
    doGenerate: async (options) => (await real()).doGenerate(options),
    doStream: async (options) => (await real()).doStream(options),
  };
}
