import { byId, disabling, element } from './dom.js';
import { runAction } from './feedback.js';

const postsPageSize = 20;

/**
 * The projects (a select of the active ones, and a form for a new one) and the chosen project's posts, with their
 * images, newest first, a page at a time, and a form for a new post.
 *
 * @param {import('./api.js').Api} api
 * @param {AbortSignal} signal
 * @param {{ onOpenPost(postId: string): Promise<void> }} handlers
 */
export function createLibrary(api, signal, { onOpenPost }) {
  const select = byId('project-select');
  const list = byId('post-list');
  const morePosts = byId('more-posts');
  const projectForm = byId('new-project-form');
  const postForm = byId('new-post-form');
  let nextPostsPath = null;
  let openPostId = null;
  // Posts of a project chosen earlier must not land in the list of the one chosen since.
  let listedProjectId = null;

  async function loadProjects(selectedId) {
    const projects = [];
    for (let path = '/api/v1/projects?status=active&pageSize=100'; path;) {
      const page = await api.get(path);
      projects.push(...page.body);
      path = page.next;
    }
    select.replaceChildren(...projects.map((project) => element('option', { value: project.id }, [projectName(project)])));
    if (selectedId) select.value = selectedId;
    const none = projects.length === 0;
    select.disabled = none;
    byId('no-projects').hidden = !none;
    byId('new-project').open = none;
    for (const control of postForm.elements) control.disabled = none;
    await loadPosts();
  }

  async function loadPosts() {
    listedProjectId = select.value || null;
    list.replaceChildren();
    nextPostsPath = listedProjectId ? `/api/v1/posts/project/${listedProjectId}?pageSize=${postsPageSize}` : null;
    await loadMorePosts();
  }

  async function loadMorePosts() {
    const projectId = listedProjectId;
    if (nextPostsPath) {
      const page = await api.get(nextPostsPath);
      if (projectId !== listedProjectId) return;
      list.append(...page.body.map(postItem));
      nextPostsPath = page.next;
    }
    morePosts.hidden = !nextPostsPath;
    byId('no-posts').hidden = !listedProjectId || list.children.length > 0;
  }

  function postItem(post) {
    const thumbnail = post.imageUrl
      ? element('img', { src: post.imageUrl, alt: '', width: 56, height: 56, loading: 'lazy' })
      : element('span', { class: 'thumbnail-placeholder', 'aria-hidden': 'true' });
    const details = [post.status, post.format, post.hasVideo ? 'video' : null].filter(Boolean).join(' · ');
    const button = element('button', { type: 'button', class: 'post-card', 'aria-current': post.id === openPostId ? 'true' : false }, [
      thumbnail,
      element('span', { class: 'post-card-title' }, [post.title]),
      element('span', { class: 'post-card-details' }, [details]),
    ]);
    button.addEventListener('click', () => void onOpenPost(post.id), { signal });
    return element('li', { 'data-post-id': post.id }, [button]);
  }

  /** Shows a post that was opened, created or changed: its card is refreshed (a new one added on top), the open one marked. */
  function showPost(post, isOpen) {
    if (isOpen && openPostId !== post.id) {
      openPostId = post.id;
      for (const current of list.querySelectorAll('[aria-current]')) current.removeAttribute('aria-current');
    }
    if (post.projectId !== listedProjectId) return;
    const existing = [...list.children].find((child) => child.dataset.postId === post.id);
    if (existing) existing.replaceWith(postItem(post));
    else if (isOpen) list.prepend(postItem(post));
    byId('no-posts').hidden = list.children.length > 0;
  }

  select.addEventListener('change', () => void runAction('Loading posts…', disabling([select]), () => loadPosts()), { signal });
  morePosts.addEventListener('click', () => void runAction('Loading more posts…', disabling([morePosts]), () => loadMorePosts()), { signal });

  projectForm.addEventListener(
    'submit',
    (event) => {
      event.preventDefault();
      const name = byId('project-name').value.trim();
      void runAction('Creating the project…', disabling(projectForm.elements), async () => {
        const { body: project } = await api.post('/api/v1/projects', { name });
        projectForm.reset();
        await loadProjects(project.id);
        byId('new-project').open = false;
        select.focus();
        return `Project ${project.name} created.`;
      });
    },
    { signal },
  );

  postForm.addEventListener(
    'submit',
    (event) => {
      event.preventDefault();
      const request = { title: byId('post-title').value.trim(), prompt: byId('post-prompt').value.trim(), projectId: select.value };
      void runAction('Creating the post…', disabling(postForm.elements), async () => {
        const { body: post } = await api.post('/api/v1/posts', request);
        postForm.reset();
        await onOpenPost(post.id);
        return `Post ${post.title} created: generate its image next.`;
      });
    },
    { signal },
  );

  return {
    load: () => loadProjects(null),
    showPost,
  };
}

function projectName(project) {
  return project.icon ? `${project.icon} ${project.name}` : project.name;
}
