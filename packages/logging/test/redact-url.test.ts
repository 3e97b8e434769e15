// redactUrl: the values of credential-like query parameters go, everything else stays as sent.
import { redactUrl } from '../src';

it.each([
  ['/api/tasks', '/api/tasks'],
  ['/api/tasks?cursor=abc&status=completed', '/api/tasks?cursor=abc&status=completed'],
  ['/files/inputs/x/0.png?exp=1&sig=abc', '/files/inputs/x/0.png?exp=1&sig=[redacted]'],
  ['/hooks/upstream/c?task=t&token=abc', '/hooks/upstream/c?task=t&token=[redacted]'],
  ['/x?%73ig=abc&a=1', '/x?%73ig=[redacted]&a=1'],
  ['/x?API_KEY=1&Client_Secret=2&passwd=3&X-Amz-Credential=4&session_id=5&code=6', '/x?API_KEY=[redacted]&Client_Secret=[redacted]&passwd=[redacted]&X-Amz-Credential=[redacted]&session_id=[redacted]&code=[redacted]'],
  ['/x?token=a&token=b#frag', '/x?token=[redacted]&token=[redacted]#frag'],
  ['/x?token&next=%', '/x?token&next=%'],
  ['/x?%E0%A4%A=1&sig=2', '/x?%E0%A4%A=1&sig=[redacted]'],
])('%s', (url, expected) => {
  expect(redactUrl(url)).toBe(expected);
});
