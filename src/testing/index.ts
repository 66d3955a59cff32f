export type { ScriptedCall, ScriptedModelOptions, ScriptReply, ScriptStep } from './scripted-model.ts';
export { apiError, ScriptedModel } from './scripted-model.ts';
