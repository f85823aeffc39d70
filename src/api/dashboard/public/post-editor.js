import { byId, formatTime } from './dom.js';
import { runAction, showError } from './feedback.js';
import { createVersionList } from './versions.js';
import { createVideoPanel } from './video.js';
import { waitForPost } from './waiting.js';

// Pixel sizes of the formats (openapi.yaml, generate): the image keeps its place while it loads.
const formatSizes = { '1:1': [1080, 1080], '9:16': [1080, 1920], '16:9': [1920, 1080] };

/**
 * The chosen post: its image and state, and what can be done with it (generate, render, publish or schedule,
 * restore a version, make a video). Actions answered 202 (still running) are followed by polling the post.
 *
 * @param {import('./api.js').Api} api
 * @param {AbortSignal} signal
 * @param {{ onPostChanged(post: any, isOpen: boolean): void }} handlers
 */
export function createPostEditor(api, signal, { onPostChanged }) {
  const editor = byId('editor');
  const actionAreas = [byId('generate-form'), byId('publish-panel'), byId('version-list')];
  const versions = createVersionList(api, signal, { onRestore: restore });
  const video = createVideoPanel(api, signal, { onDone: (postId) => void reload(postId).catch((error) => showError(error.message)) });
  /** The post on screen; actions and late answers check against it, as another one may be opened meanwhile. */
  let post = null;

  function setBusy(busy) {
    editor.setAttribute('aria-busy', String(busy));
    for (const area of actionAreas) for (const control of area.querySelectorAll('button, input, select, textarea')) control.disabled = busy;
  }

  function show(shown, { fresh = false } = {}) {
    post = shown;
    byId('editor-empty').hidden = true;
    editor.hidden = false;
    byId('post-heading').textContent = shown.title;
    byId('post-meta').textContent = describe(shown);
    const image = byId('post-image');
    const [width, height] = formatSizes[shown.format];
    if (shown.imageUrl) {
      image.width = width;
      image.height = height;
      image.src = shown.imageUrl;
      image.alt = `Image of the post “${shown.title}”`;
      byId('post-image-caption').textContent = `Current image, ${shown.format}.`;
    } else {
      image.removeAttribute('src');
      byId('post-image-caption').textContent = 'No image yet: generate one.';
    }
    image.hidden = !shown.imageUrl;
    if (fresh) {
      byId('generate-prompt').value = shown.prompt;
      byId('generate-format').value = shown.format;
      byId('schedule-form').reset();
    }
    onPostChanged(shown, true);
  }

  /** Reads the post again after a change; only shown if it is still the one on screen. */
  async function reload(postId) {
    const { body: current } = await api.get(`/api/v1/posts/${postId}`);
    if (post?.id !== postId) {
      onPostChanged(current, false);
      return;
    }
    show(current);
    await versions.load(postId);
  }

  /** Runs an action on the post on screen, then shows the post as it is now, whether the action worked or not. */
  function act(working, action) {
    const postId = post.id;
    return runAction(working, setBusy, async () => {
      let outcome;
      try {
        outcome = await action(postId);
      } catch (error) {
        // The action's own error is the one to show; a failing reload would only hide it.
        if (!signal.aborted) await reload(postId).catch(() => {});
        throw error;
      }
      await reload(postId);
      return outcome;
    });
  }

  async function generate(postId) {
    const request = { prompt: byId('generate-prompt').value.trim(), format: byId('generate-format').value };
    const { status, body } = await api.post(`/api/v1/posts/${postId}/generate`, request);
    if (status === 200) return body.respond;
    const generated = await waitForPost(api, postId, (current) => current.updatedAt !== body.post.updatedAt || current.status === 'failed', signal);
    if (generated.status === 'failed') throw new Error(`Generation failed: ${generated.failureReason}`);
    return 'Generated.';
  }

  async function render(postId) {
    const before = post.updatedAt;
    const { status, body } = await api.post(`/api/v1/posts/${postId}/render`);
    if (status === 202) {
      const rendered = await waitForPost(api, postId, (current) => current.updatedAt !== before || current.status === 'failed', signal);
      if (rendered.status === 'failed') throw new Error(`Render failed: ${rendered.failureReason}`);
      return 'Rendered.';
    }
    return body.notes.length > 0 ? `Rendered. ${body.notes.join(' ')}` : 'Rendered.';
  }

  async function publish(postId) {
    const { status } = await api.post(`/api/v1/posts/${postId}/publish`);
    if (status === 202) await waitForPost(api, postId, (current) => current.status === 'published' || current.status === 'failed', signal);
    return 'Published.';
  }

  async function schedule(postId) {
    // datetime-local has no zone: it is the reader's local time, sent as UTC.
    const scheduledAt = new Date(byId('schedule-at').value).toISOString();
    const { body } = await api.post(`/api/v1/posts/${postId}/schedule`, { scheduledAt });
    return `Scheduled for ${formatTime(body.scheduledAt)}.`;
  }

  function restore(version) {
    return act(`Restoring version ${version.versionNumber}…`, async (postId) => {
      await api.post(`/api/v1/posts/${postId}/versions/${version.id}/restore`);
      return `Version ${version.versionNumber} restored: it is the current image now.`;
    });
  }

  byId('generate-form').addEventListener(
    'submit',
    (event) => {
      event.preventDefault();
      void act('Generating the image…', generate);
    },
    { signal },
  );
  byId('render').addEventListener('click', () => void act('Rendering…', render), { signal });
  byId('publish').addEventListener('click', () => void act('Publishing…', publish), { signal });
  byId('schedule-form').addEventListener(
    'submit',
    (event) => {
      event.preventDefault();
      void act('Scheduling…', schedule);
    },
    { signal },
  );

  return {
    /** Opens a post (after a click in the list, or once created) and moves focus to it. */
    open(postId) {
      return runAction('Opening the post…', setBusy, async () => {
        const { body: opened } = await api.get(`/api/v1/posts/${postId}`);
        show(opened, { fresh: true });
        video.open(opened);
        await versions.load(postId);
        byId('post-heading').focus();
      });
    },
    /** Back to "nothing chosen" (after logging in). */
    clear() {
      post = null;
      video.close();
      editor.hidden = true;
      byId('editor-empty').hidden = false;
    },
  };
}

function describe(post) {
  const parts = [`Status: ${post.status}`, `format ${post.format}`];
  if (post.scheduledAt && post.status === 'scheduled') parts.push(`publishes ${formatTime(post.scheduledAt)}`);
  if (post.publishedAt) parts.push(`published ${formatTime(post.publishedAt)}`);
  if (post.hasVideo) parts.push('has a video');
  if (post.status === 'failed' && post.failureReason) parts.push(`failed: ${post.failureReason}`);
  return `${parts.join(' · ')}.`;
}
