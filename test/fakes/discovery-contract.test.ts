import { describe, expect, it } from 'vitest';
import { loadDiscoveryContract } from './discovery-contract.ts';

// The check of our requests against a Google API's discovery document (YouTube Data API v3's): it must refuse what
// the document refuses, or a fake that validates would pass anything.

const youtube = loadDiscoveryContract(new URL('../fixtures/platform-apis/youtube/youtube.v3.discovery.json', import.meta.url).pathname);
const video = {
  snippet: { title: 'Harbour lights', description: 'Boats at night', categoryId: '22' },
  status: { privacyStatus: 'private', selfDeclaredMadeForKids: false },
};
const upload = (query: Record<string, string>, json: unknown = video) => ({
  method: 'POST',
  path: '/upload/youtube/v3/videos',
  query: new URLSearchParams(query),
  json,
});

describe("the fakes' check against a Google discovery document", () => {
  it("when a resumable upload is begun with the video's metadata, then YouTube's document takes it", () => {
    expect(youtube.problemsOf(upload({ uploadType: 'resumable', part: 'snippet,status' }))).toEqual([]);
    expect(
      youtube.problemsOf({ method: 'GET', path: '/youtube/v3/channels', query: new URLSearchParams({ part: 'snippet', mine: 'true' }), json: undefined }),
    ).toEqual([]);
  });

  it('when the metadata names a field the schema does not, or a value outside its enum, then each is named', () => {
    const unknown = { ...video, snippet: { ...video.snippet, hashtags: ['boats'] } };
    expect(youtube.problemsOf(upload({ uploadType: 'resumable', part: 'snippet' }, unknown))).toEqual([
      'body/snippet must NOT have additional properties (hashtags)',
    ]);
    const secret = { ...video, status: { privacyStatus: 'secret' } };
    expect(youtube.problemsOf(upload({ uploadType: 'resumable', part: 'status' }, secret))).toEqual([
      'body/status/privacyStatus must be equal to one of the allowed values',
    ]);
  });

  it('when a required parameter is missing, one is unknown or of the wrong type, or the method does not exist, then each is named', () => {
    expect(youtube.problemsOf(upload({ uploadType: 'resumable' }))).toEqual(['query parameter part is required']);
    expect(youtube.problemsOf(upload({ part: 'snippet', notifySubscribers: 'maybe', shorts: 'true' }))).toEqual([
      'query parameter notifySubscribers must be true or false, not maybe',
      'query parameter shorts is not one youtube.videos.insert takes',
    ]);
    expect(youtube.problemsOf({ method: 'PATCH', path: '/youtube/v3/videos', query: new URLSearchParams(), json: undefined })).toEqual([
      'PATCH /youtube/v3/videos is not a method of the API',
    ]);
  });
});
