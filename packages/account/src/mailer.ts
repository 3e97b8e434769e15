// Outgoing mail (verification and reset links) through nodemailer over SMTP_URL: the best-kept
// SMTP client for Node (pooling, TLS, auth from the URL). With no SMTP_URL, development and tests
// get the message in the log instead, so sign-up works on a machine with no mail server.
import type Nodemailer from 'nodemailer';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
  close(): void;
}

export function createMailer(opts: { smtpUrl?: string; from: string; log: (fields: Record<string, unknown>, msg: string) => void }): Mailer {
  if (!opts.smtpUrl) {
    return {
      async send(mail) {
        opts.log({ to: mail.to, subject: mail.subject, text: mail.text }, 'mail not sent (no SMTP_URL): its text is here');
      },
      close() {},
    };
  }
  // Loaded here, not at import: a deployment without SMTP_URL never needs nodemailer's ~40 modules
  // in memory (docs/benchmark.md, "Gateway RSS on Node 24").
  const nodemailer = (require('nodemailer') as { default: typeof Nodemailer }).default;
  const transport = nodemailer.createTransport(opts.smtpUrl);
  return {
    async send(mail) {
      await transport.sendMail({ from: opts.from, to: mail.to, subject: mail.subject, text: mail.text });
    },
    close: () => transport.close(),
  };
}
