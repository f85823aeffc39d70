import type { Project } from '../../adapters/database/entities/project.ts';
import type { ObjectStorage } from '../../adapters/object-storage/object-storage.ts';
import type { Schemas } from '../schemas.ts';

export function presentProjectListItem(project: Project): Schemas['ProjectListItem'] {
  return {
    id: project.id,
    name: project.name,
    description: project.description ?? null,
    icon: project.icon ?? null,
    color: project.color ?? null,
    status: project.status,
    createdAt: project.createdAt.toISOString(),
  };
}

export async function presentProject(project: Project, storage: ObjectStorage): Promise<Schemas['Project']> {
  return {
    ...presentProjectListItem(project),
    coverUrl: project.coverKey ? await storage.signedUrl(project.coverKey) : null,
  };
}

export function presentCreatedProject(project: Project): Schemas['CreateProjectResponse'] {
  return { id: project.id, name: project.name, status: project.status, createdAt: project.createdAt.toISOString() };
}

export function presentUpdatedProject(project: Project): Schemas['UpdateProjectResponse'] {
  return { id: project.id, name: project.name, status: project.status };
}

export async function presentProjectCover(project: Project, coverKey: string, storage: ObjectStorage): Promise<Schemas['UploadProjectCoverResponse']> {
  return { id: project.id, coverUrl: await storage.signedUrl(coverKey), name: project.name };
}
