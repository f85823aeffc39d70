import { Router, type Request } from 'express';
import type { PostStatus } from '../../adapters/database/entities/post.ts';
import type { Deps } from '../../domain/deps.ts';
import { createPost } from '../../domain/posts/create-post.ts';
import { deletePost } from '../../domain/posts/delete-post.ts';
import { listPosts, listProjectPosts, type PostListQuery } from '../../domain/posts/list-posts.ts';
import { readPost } from '../../domain/posts/read-post.ts';
import { updatePost } from '../../domain/posts/update-post.ts';
import { callerOf } from '../caller-of.ts';
import { requestKeyOf } from '../request-key-of.ts';
import { pageRequestOf, sendPage } from '../paging.ts';
import { presentCreatedPost, presentPost, presentPostListItem, presentUpdatedPost } from '../presenters/post.ts';
import type { Schemas } from '../schemas.ts';

export function postRoutes(deps: Deps): Router {
  const router = Router();
  const presentAll = (posts: Parameters<typeof presentPostListItem>[0][]) => Promise.all(posts.map((post) => presentPostListItem(post, deps.storage)));

  router.get('/posts', async (req, res) => {
    const page = await listPosts(deps, callerOf(res), listQueryOf(req));
    sendPage(req, res, page, await presentAll(page.items));
  });

  router.get('/posts/project/:projectId', async (req, res) => {
    const page = await listProjectPosts(deps, callerOf(res), req.params.projectId, listQueryOf(req));
    sendPage(req, res, page, await presentAll(page.items));
  });

  router.post('/posts', async (req, res) => {
    const post = await createPost(deps, callerOf(res), req.body as Schemas['CreatePostRequest'], requestKeyOf(res));
    res
      .status(201)
      .location(`/api/v1/posts/${post.id}`)
      .json(await presentCreatedPost(post, deps.storage));
  });

  router.get('/posts/:id', async (req, res) => {
    res.json(await presentPost(await readPost(deps.orm.em.fork(), callerOf(res).workspaceId, req.params.id), deps.storage));
  });

  router.put('/posts/:id', async (req, res) => {
    const post = await updatePost(deps, callerOf(res), req.params.id, req.body as Schemas['UpdatePostRequest']);
    res.json(presentUpdatedPost(post));
  });

  router.delete('/posts/:id', async (req, res) => {
    await deletePost(deps, callerOf(res), req.params.id);
    res.status(204).end();
  });

  return router;
}

function listQueryOf(req: Request): PostListQuery {
  const { status, cursor } = req.query;
  return {
    ...pageRequestOf(req),
    status: typeof status === 'string' ? (status as PostStatus) : undefined,
    cursor: typeof cursor === 'string' ? cursor : undefined,
  };
}
