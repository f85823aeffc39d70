// What the video activity reports as it works (its heartbeat details), and how a job's status reads it back.
export type VideoProgress = { stage: 'preparing' | 'encoding' | 'storing'; percent: number };

export function describeProgress(progress: VideoProgress | undefined): string {
  switch (progress?.stage) {
    case 'encoding':
      return `Encoding the video: ${progress.percent}%`;
    case 'storing':
      return 'Storing the video';
    default:
      return 'Preparing the frames';
  }
}
