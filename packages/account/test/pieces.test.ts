// Pure pieces of the account pages: the usage chart escapes model names and draws one bar per day
// and model; CSV fields never become spreadsheet formulas; the mailer without SMTP_URL writes the
// message (link included) to the log, so sign-up works with no settings.
import { createMailer, csvField, safeAccountNext } from '../src';
import { usageChart } from '../src/usage-chart';

describe('usage chart', () => {
  it('stacks per day and model, totals per model, and escapes names', () => {
    const today = new Date('2026-11-27T10:00:00Z');
    const c = usageChart(
      [
        { day: '2026-11-26', model: 'image-b-2.5', cents: 30, tasks: 3 },
        { day: '2026-11-27', model: '<script>x</script>', cents: 50, tasks: 1 },
        { day: '2026-11-27', model: 'image-b-2.5', cents: -4, tasks: 0 },
      ],
      30,
      today,
    );
    expect(c.totalCents).toBe(76);
    expect(c.models.map((m) => [m.model, m.cents, m.tasks])).toEqual([
      ['<script>x</script>', 50, 1],
      ['image-b-2.5', 26, 3],
    ]);
    expect(c.svg).not.toContain('<script>');
    expect(c.svg).toContain('&#60;script&#62;');
    expect((c.svg.match(/<rect /g) ?? []).length).toBe(2); // refunds are not drawn as negative bars
    expect(c.svg).toContain('10-29'); // the first of the 30 days is labelled
  });
});

describe('CSV fields', () => {
  it('quotes, doubles quotes and defuses formulas but keeps numbers', () => {
    expect(csvField('a "b"')).toBe('"a ""b"""');
    expect(csvField('=1+2')).toBe(`"'=1+2"`);
    expect(csvField('@SUM(A1)')).toBe(`"'@SUM(A1)"`);
    expect(csvField(-250)).toBe('"-250"');
    expect(csvField(null)).toBe('""');
  });
});

describe('sign-in redirect target', () => {
  it('stays on the account pages', () => {
    expect(safeAccountNext('/account/keys')).toBe('/account/keys');
    expect(safeAccountNext('//evil.example/account')).toBe('/account');
    expect(safeAccountNext('https://evil.example/')).toBe('/account');
    expect(safeAccountNext('/console/accounts')).toBe('/account');
    expect(safeAccountNext('/account\\@evil')).toBe('/account');
  });
});

describe('mailer without SMTP_URL', () => {
  it('writes the message with its link to the log', async () => {
    const lines: { fields: Record<string, unknown>; msg: string }[] = [];
    const m = createMailer({ from: 'x <x@example.com>', log: (fields, msg) => lines.push({ fields, msg }) });
    await m.send({ to: 'a@example.com', subject: 'Confirm', text: 'open http://localhost:3000/account/verify?token=abc' });
    expect(lines).toHaveLength(1);
    expect(lines[0].msg).toContain('no SMTP_URL');
    expect(lines[0].fields).toMatchObject({ to: 'a@example.com', text: expect.stringContaining('/account/verify?token=abc') });
  });
});
