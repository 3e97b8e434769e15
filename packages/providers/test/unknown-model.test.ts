// "This model does not exist / is no longer available", in each protocol's own words, is its own
// UpstreamError kind (unknown_model) on a submit, never on a status call (there a 404 is a lost
// render) and never for an answer about something else.
import { AxiosError, AxiosHeaders, type InternalAxiosRequestConfig } from 'axios';
import { classifyFalError } from '../src/fal/fal-errors';
import { classifyGeminiError } from '../src/gemini/gemini-errors';
import { classifyMinimaxError } from '../src/minimax/minimax-errors';
import { classifyModelarkError } from '../src/modelark/modelark-errors';
import { classifyReplicateError } from '../src/replicate/replicate-errors';

function answer(status: number, data: unknown, method = 'post'): AxiosError {
  const config = { method, url: '/x', headers: new AxiosHeaders() } as InternalAxiosRequestConfig;
  return new AxiosError(`HTTP ${status}`, 'ERR_BAD_REQUEST', config, {}, { status, statusText: '', headers: {}, config, data });
}

type Classify = (err: unknown, action: 'submit' | 'status') => { kind: string; message: string };
const protocols: Record<string, Classify> = {
  gemini: (e, a) => classifyGeminiError(e, a, true),
  modelark: (e, a) => classifyModelarkError(e, a, true),
  minimax: (e, a) => classifyMinimaxError(e, a, true),
  fal: (e, a) => classifyFalError(e, a, true),
  replicate: (e, a) => classifyReplicateError(e, a, true),
};

it.each([
  // ai.google.dev deprecations: a shut-down id answers 404 NOT_FOUND.
  ['gemini', answer(404, { error: { code: 404, status: 'NOT_FOUND', message: 'models/gemini-3-pro-image-preview is not found for API version v1beta, or is not supported for generateContent.' } }), 'gemini-3-pro-image-preview'],
  ['gemini', answer(404, { error: { code: 404, status: 'NOT_FOUND', message: 'Model veo-3.1-generate-preview is no longer available.' } }), 'veo-3.1-generate-preview'],
  // BytePlus ModelArk error codes (1299023).
  ['modelark', answer(404, { error: { code: 'InvalidEndpointOrModel.NotFound', message: 'The model or endpoint seedream-4-0-250828 does not exist or you do not have access to it.' } }), 'seedream-4-0-250828'],
  ['modelark', answer(404, { error: { code: 'ModelNotOpen', message: 'Your account has not activated the model dreamina-seedance-2-0-260128.' } }), 'ModelNotOpen'],
  // MiniMax has no own code: 2013 naming the model (the v2 envelope, the legacy code in the message).
  ['minimax', answer(400, { type: 'error', error: { type: 'invalid_request_error', message: "invalid params, unknown model 'MiniMax-H2' (2013)", http_code: 400 } }), 'MiniMax-H2'],
  ['fal', answer(404, { detail: 'Application fal-ai/veo3/fast not found' }), 'fal-ai/veo3'],
  ['replicate', answer(404, { detail: 'The requested model could not be found.', status: 404 }), 'could not be found'],
  ['replicate', answer(422, { detail: 'Invalid version or not permitted.', status: 422 }), 'Invalid version'],
])('%s: a submit answered that the model is unknown is unknown_model (%#)', (protocol, err, named) => {
  const e = protocols[protocol](err, 'submit');
  expect(e.kind).toBe('unknown_model');
  expect(e.message).toContain(named);
});

it.each([
  ['gemini', answer(404, { error: { code: 404, status: 'NOT_FOUND', message: 'Requested entity was not found.' } }, 'get'), 'lost'],
  ['modelark', answer(404, { error: { code: 'ResourceNotFound', message: 'The specified task is not found.' } }, 'get'), 'lost'],
  ['minimax', answer(404, { type: 'error', error: { type: 'not_found_error', message: 'task not found', http_code: 404 } }, 'get'), 'lost'],
  ['fal', answer(404, { detail: 'Request not found' }, 'get'), 'lost'],
  ['replicate', answer(404, { detail: 'Not found.', status: 404 }, 'get'), 'lost'],
])('%s: a 404 on a status call is a lost render, not an unknown model', (protocol, err, kind) => {
  expect(protocols[protocol](err, 'status').kind).toBe(kind);
});

it.each([
  ['modelark', answer(400, { error: { code: 'InvalidParameter', message: 'The parameter duration specified in the request is not valid.' } })],
  ['minimax', answer(400, { type: 'error', error: { type: 'invalid_request_error', message: 'invalid params, duration must be in [5, 15] (2013)', http_code: 400 } })],
  // The Replicate orphan search lists predictions (a GET classified as a submit): its 404 is not about the model.
  ['replicate', answer(404, { detail: 'Not found.', status: 404 }, 'get')],
])('%s: other refusals of a submit stay failed', (protocol, err) => {
  expect(protocols[protocol](err, 'submit').kind).toBe('failed');
});
