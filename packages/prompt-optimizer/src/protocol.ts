// What a protocol module hands back from the model's HTTP answer, before our own checks.
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

export type ModelAnswer =
  | { kind: 'text'; text: string; usage: TokenUsage }
  | { kind: 'refused' | 'unparsable'; detail: string; usage?: TokenUsage };
