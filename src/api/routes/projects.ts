import { Router } from 'express';
import type { Deps } from '../../domain/deps.ts';
import { createProject } from '../../domain/projects/create-project.ts';
import { deleteProject } from '../../domain/projects/delete-project.ts';
import { deleteProjectCover } from '../../domain/projects/delete-project-cover.ts';
import { findProject } from '../../domain/find-in-workspace.ts';
import { listProjects } from '../../domain/projects/list-projects.ts';
import { updateProject } from '../../domain/projects/update-project.ts';
import { uploadProjectCover } from '../../domain/projects/upload-project-cover.ts';
import { AppError } from '../../common/errors/app-error.ts';
import { callerOf } from '../caller-of.ts';
import { requestKeyOf } from '../request-key-of.ts';
import { pageRequestOf, sendPage } from '../paging.ts';
import { presentCreatedProject, presentProject, presentProjectCover, presentProjectListItem, presentUpdatedProject } from '../presenters/project.ts';
import type { Schemas } from '../schemas.ts';

export function projectRoutes(deps: Deps): Router {
  const router = Router();

  router.get('/projects', async (req, res) => {
    const status = req.query.status as Schemas['ProjectStatus'] | undefined;
    const page = await listProjects(deps, callerOf(res), { status, ...pageRequestOf(req) });
    sendPage(req, res, page, page.items.map(presentProjectListItem));
  });

  router.post('/projects', async (req, res) => {
    const project = await createProject(deps, callerOf(res), req.body as Schemas['CreateProjectRequest'], requestKeyOf(res));
    res.status(201).location(`/api/v1/projects/${project.id}`).json(presentCreatedProject(project));
  });

  router.get('/projects/:id', async (req, res) => {
    const project = await findProject(deps.orm.em.fork(), callerOf(res).workspaceId, req.params.id);
    res.json(await presentProject(project, deps.storage));
  });

  router.put('/projects/:id', async (req, res) => {
    const project = await updateProject(deps, callerOf(res), req.params.id, req.body as Schemas['UpdateProjectRequest']);
    res.json(presentUpdatedProject(project));
  });

  router.delete('/projects/:id', async (req, res) => {
    await deleteProject(deps, callerOf(res), req.params.id);
    res.status(204).end();
  });

  router.post('/projects/:id/cover', async (req, res) => {
    const { project, coverKey } = await uploadProjectCover(deps, callerOf(res), req.params.id, uploadedFile(req.files), requestKeyOf(res));
    res.json(await presentProjectCover(project, coverKey, deps.storage));
  });

  router.delete('/projects/:id/cover', async (req, res) => {
    await deleteProjectCover(deps, callerOf(res), req.params.id);
    res.status(204).end();
  });

  return router;
}

/** The validator checks a `file` member exists but accepts it as a plain text field; insist on a real file. */
function uploadedFile(files: unknown): Buffer {
  const file = Array.isArray(files) ? (files as Array<{ fieldname: string; buffer: Buffer }>).find((item) => item.fieldname === 'file') : undefined;
  if (!file) {
    throw new AppError('validation-failed', 'The multipart field `file` must carry a file.', {
      errors: [{ location: 'body', path: '/file', message: 'must be a file' }],
    });
  }
  return file.buffer;
}
