import type { Project } from '../../data/entities/project.ts';
import type { ObjectStorage } from '../../storage/object-storage.ts';
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
