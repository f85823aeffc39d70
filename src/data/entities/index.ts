import { ApiKey } from './api-key.ts';
import { BrandKit } from './brand-kit.ts';
import { OrphanedObject } from './orphaned-object.ts';
import { Project } from './project.ts';
import { Workspace } from './workspace.ts';

export const entities = [Workspace, ApiKey, Project, BrandKit, OrphanedObject];
