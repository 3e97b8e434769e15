// The body parser of every server-rendered form (console and account pages): urlencoded only, small
// (20 kB, 50 fields), flat keys (no qs nesting), so a hostile post costs little to refuse.
import express from 'express';

export const formBody = () => express.urlencoded({ extended: false, limit: '20kb', parameterLimit: 50 });
