// optimize_prompt: the structured prompt format and the language-model rewrite.
export * from './structured-prompt';
export * from './optimizer-request';
export * from './optimizer-config';
export * from './optimizer';
export type { TokenUsage, ModelAnswer } from './protocol';
export { openAiChatBody, readOpenAiChatAnswer } from './openai-chat';
export { geminiBody, geminiPath, readGeminiAnswer } from './gemini';
