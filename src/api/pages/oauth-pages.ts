import { createHash } from 'node:crypto';
import type { Response } from 'express';
import { platformNames } from '../../adapters/social/social-platforms.ts';
import type { AuthorizationConsent } from '../../domain/social-connections/describe-authorization.ts';

// The few pages a person (not a client) sees while connecting an account: our consent page, and what the consent
// page and the callback answer when they send nobody anywhere. Nothing on them runs a script; their one style sheet
// is allowed by its hash, so the CSP needs neither 'unsafe-inline' nor a file to serve.
const style =
  'body{font-family:system-ui,sans-serif;max-width:34rem;margin:4rem auto;padding:0 1rem;color:#1b1b1f;line-height:1.5}' +
  'h1{font-size:1.4rem}strong{overflow-wrap:anywhere}button{font:inherit;padding:.6rem 1.4rem;border-radius:.4rem;border:0;background:#2346c6;color:#fff;cursor:pointer}' +
  '.small{color:#55565f;font-size:.9rem}';
const styleHash = createHash('sha256').update(style).digest('base64');

// No form-action: Chromium applies it to the redirect that follows the form's POST, which goes to the platform's
// origin (configuration); the page has no script to point a form anywhere else.
const contentSecurityPolicy = `default-src 'none'; style-src 'sha256-${styleHash}'; base-uri 'none'; frame-ancestors 'none'`;

export type RefusalReason = 'invalid-state' | 'expired' | 'unconfirmed' | 'other-browser' | 'forged';

const refusals: Record<RefusalReason, { status: number; title: string; text: string }> = {
  'invalid-state': {
    status: 400,
    title: 'This link is not valid',
    text: 'This sign-in link is not valid or was already used. Start connecting the account again from the application you came from.',
  },
  expired: {
    status: 400,
    title: 'This link has expired',
    text: 'This sign-in link has expired: links to connect an account work for ten minutes. Start connecting the account again from the application you came from.',
  },
  unconfirmed: {
    status: 400,
    title: 'This connection was not confirmed',
    text: 'This sign-in did not go through our page that names who is asking, so nothing was connected. Start connecting the account again from the application you came from.',
  },
  'other-browser': {
    status: 400,
    title: 'This connection was confirmed elsewhere',
    text: 'Continue on our page that names who is asking was pressed in another browser, so nothing was connected. Open the link you were given in this browser and press Continue there.',
  },
  forged: {
    status: 403,
    title: 'Continue from the page itself',
    text: 'Continue was not pressed on our page, so nothing happened. Open the link you were given again and press Continue there.',
  },
};

/** Answers with one of our pages: never cached, never framed, never telling where it was reached from. */
function sendPage(res: Response, status: number, title: string, body: string): void {
  res
    .status(status)
    .set({
      'Cache-Control': 'no-store',
      'Content-Security-Policy': contentSecurityPolicy,
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
    })
    .type('html')
    .send(
      `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
        `<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${style}</style></head>` +
        `<body><h1>${escapeHtml(title)}</h1>${body}</body></html>\n`,
    );
}

/**
 * The consent page: which workspace asks to post as the person, on which platform (and as which author), where they
 * go back to, and one button that continues to the platform. The form carries `csrf`, which must match the cookie
 * this answer sets (routes/oauth-consent.ts).
 */
export function sendConsentPage(res: Response, consent: AuthorizationConsent, csrf: string): void {
  const platform = platformNames[consent.platform];
  const as = consent.author === null ? 'you' : `<strong id="author">${escapeHtml(consent.author)}</strong>, which you manage,`;
  sendPage(
    res,
    200,
    `Connect your ${platform} account`,
    `<p>The workspace <strong id="workspace">${escapeHtml(consent.workspaceName)}</strong> is asking to post as ${as} on ` +
      `<strong id="platform">${escapeHtml(platform)}</strong>.</p>` +
      `<p>Continue only if you know this workspace and expected to connect your account to it. ${escapeHtml(platform)} will then ` +
      `ask you to grant access, and you will be sent back to <strong>${escapeHtml(consent.returnsTo)}</strong>.</p>` +
      `<form method="post"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}"><button type="submit" id="continue">Continue to ${escapeHtml(platform)}</button></form>` +
      `<p class="small">If you did not expect this, close this page: nothing is connected unless you continue and grant access.</p>`,
  );
}

/** Our page when the consent page or the callback sends nobody anywhere, saying why. */
export function sendRefusalPage(res: Response, reason: RefusalReason): void {
  const { status, title, text } = refusals[reason];
  sendPage(res, status, title, `<p>${escapeHtml(text)}</p>`);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
