import { byId, disabling } from './dom.js';
import { announce, runAction, showError } from './feedback.js';
import { sleep } from './waiting.js';

const pollMs = 500;
const finished = new Set(['done', 'failed', 'cancelled']);

/**
 * The post's video: "Start video" asks the dashboard's own endpoint for a job, whose progress is then polled live
 * (`GET /video/jobs/{jobId}`) into the progress bar and message; once done, the video plays here. A post that
 * already has a video shows its latest one (a fresh presigned URL).
 *
 * @param {import('./api.js').Api} api
 * @param {AbortSignal} signal
 * @param {{ onDone(postId: string): void }} handlers
 */
export function createVideoPanel(api, signal, { onDone }) {
  const startButton = byId('start-video');
  const progress = byId('video-progress');
  const message = byId('video-message');
  const video = byId('video');
  // Jobs still running, by post: opening the post again picks up following its job.
  const runningJobs = new Map();
  let postId = null;
  // Bumped whenever what the panel shows changes hands, so a stale poll or answer stops touching it.
  let view = 0;

  function reset(forPostId) {
    postId = forPostId;
    view += 1;
    progress.value = 0;
    message.textContent = '';
    video.hidden = true;
    video.removeAttribute('src');
    video.load();
    return view;
  }

  function play(url) {
    video.src = url;
    video.hidden = false;
  }

  function showJob(job) {
    const percent = /(\d+(?:\.\d+)?)\s*%/.exec(job.message);
    if (job.status === 'done') progress.value = 100;
    else if (percent) progress.value = Math.min(100, Number(percent[1]));
    // The service words the progress ("Encoding the video: 42%"); a failure says why.
    message.textContent = job.status === 'failed' ? `The video failed: ${job.error ?? job.message}` : job.message;
  }

  async function follow(forPostId, jobId, shown) {
    for (;;) {
      let job;
      try {
        ({ body: job } = await api.get(`/api/v1/video/jobs/${jobId}`));
      } catch (error) {
        if (shown === view) message.textContent = `Could not check on the video (${error.message}). Open the post again to retry.`;
        return;
      }
      if (signal.aborted) return;
      if (finished.has(job.status)) runningJobs.delete(forPostId);
      // The post has a video now, whether it is still on screen or not.
      if (job.status === 'done') onDone(forPostId);
      if (shown !== view) return;
      showJob(job);
      if (job.status === 'done') {
        play(job.videoUrl);
        announce('The video is ready to play.');
        return;
      }
      if (job.status === 'failed') showError(message.textContent);
      if (finished.has(job.status)) return;
      await sleep(pollMs);
    }
  }

  async function showLatestVideo(forPostId, shown) {
    try {
      const { body } = await api.get(`/api/v1/video/presign/${forPostId}`);
      if (shown !== view) return;
      progress.value = 100;
      message.textContent = 'The latest video of this post.';
      play(body.url);
    } catch (error) {
      if (shown === view) message.textContent = `The video cannot be shown: ${error.message}`;
    }
  }

  startButton.addEventListener(
    'click',
    () => {
      const forPostId = postId;
      void runAction('Starting a video…', disabling([startButton]), async () => {
        const { body } = await api.post(`/dashboard/api/posts/${forPostId}/video`);
        runningJobs.set(forPostId, body.jobId);
        if (forPostId === postId) void follow(forPostId, body.jobId, reset(forPostId));
        return 'Video started: its progress shows in the Video section.';
      });
    },
    { signal },
  );

  return {
    /** Shows the video state of a post just opened. */
    open(post) {
      const shown = reset(post.id);
      const jobId = runningJobs.get(post.id);
      if (jobId) void follow(post.id, jobId, shown);
      else if (post.hasVideo) void showLatestVideo(post.id, shown);
    },
    close() {
      reset(null);
    },
  };
}
