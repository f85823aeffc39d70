// Who can see the video YouTube made, in words for the attempt's history, when that is not everyone: YouTube may
// give a video another privacy than the one asked. A project Google has not audited has every upload locked private
// ("All videos uploaded via the videos.insert endpoint from unverified API projects created after 28 July 2020 will
// be restricted to private viewing mode", https://developers.google.com/youtube/v3/docs/videos/insert), which the
// channel owner would otherwise discover only by looking.

/** What the attempt's history says of the video's visibility, `asked` being the privacy the upload asked for; undefined for a public video. */
export function youTubeVisibilityOf(privacyStatus: string | undefined, asked: string): string | undefined {
  if (privacyStatus === undefined || privacyStatus === 'public') return undefined;
  if (privacyStatus === 'private' && asked !== 'private') {
    return (
      'Visible only to the channel owner: YouTube locked the video private, as it does every upload from an API project ' +
      "Google has not audited; the operator's Google Cloud project must pass the YouTube API audit for videos to be public."
    );
  }
  if (privacyStatus === 'private') return 'Visible only to the channel owner (private).';
  if (privacyStatus === 'unlisted') return 'Visible only to people with its link (unlisted).';
  return `YouTube gave the video the privacy status "${privacyStatus}".`;
}
