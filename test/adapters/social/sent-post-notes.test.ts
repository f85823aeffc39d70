import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { callSessionStore } from '../../../src/adapters/social/call-session-store.ts';
import { sentPostNotes, type SentPost } from '../../../src/adapters/social/sent-post-notes.ts';

const notes = sentPostNotes('linkedInSent');
const noteSentPost = (sessions: Parameters<typeof notes.note>[0], sent: SentPost) => notes.note(sessions, sent);
const sentPostOf = (sessions: Parameters<typeof notes.lookUp>[0], key: string) => notes.lookUp(sessions, key);

// The notes of posts (LinkedIn's here) about to be sent: a day of them, so a publication without one was never sent, unless
// notes of the last day had to be dropped (more than a thousand), when it is unknown.

const day = 24 * 60 * 60 * 1000;
const note = (at: number): SentPost => ({ key: randomUUID(), digest: 'digest', image: false, at });

describe('sent-post notes', () => {
  it('when a post was noted, then its note is found; one never noted was never sent', async () => {
    const sessions = callSessionStore();
    const sent = note(Date.now());
    await noteSentPost(sessions, sent);
    expect(await sentPostOf(sessions, sent.key)).toEqual(sent);
    expect(await sentPostOf(sessions, randomUUID())).toBe('never sent');
    expect(await sentPostOf(undefined, sent.key)).toBe('unknown');
  });

  it('when notes are over a day old, then they go as the next is noted, and what they were of counts as never sent', async () => {
    const sessions = callSessionStore();
    const old = note(Date.now() - day - 60_000);
    await noteSentPost(sessions, old);
    await noteSentPost(sessions, note(Date.now()));
    expect(await sentPostOf(sessions, old.key)).toBe('never sent');
  });

  it('when more than a thousand posts were noted within the day, then the oldest note goes, and a publication without a note is unknown', async () => {
    const sessions = callSessionStore();
    const start = Date.now() - 60 * 60_000;
    const notes = Array.from({ length: 1_001 }, (_, index) => note(start + index));
    for (const each of notes) await noteSentPost(sessions, each);
    expect(await sentPostOf(sessions, notes[0]!.key)).toBe('unknown');
    expect(await sentPostOf(sessions, notes[1]!.key)).toEqual(notes[1]);
    expect(await sentPostOf(sessions, randomUUID())).toBe('unknown');
  });
});
