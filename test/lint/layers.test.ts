import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { root } from './source-files.ts';

// The layers run one way (eslint.config.js, boundaries/dependencies): `npm run lint` refuses an import of a layer
// above. Each case is linted as a file at that path with the project's own configuration. Only the layer rule runs,
// and without type information: the layers need none, and loading it for the whole project takes a minute.

const eslint = new ESLint({
  cwd: root,
  ruleFilter: ({ ruleId }) => ruleId.startsWith('boundaries/'),
  overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
});

async function layerErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((message) => `${message.ruleId}: ${message.message}`);
}

describe('layers', () => {
  it.each([
    ['the domain imports the api', 'src/domain/posts/x.ts', "export { postRoutes } from '../../api/routes/posts.ts';", 'domain', 'api'],
    ['an adapter imports the domain', 'src/adapters/social/x.ts', "export { createPost } from '../../domain/posts/create-post.ts';", 'adapter', 'domain'],
    ['the config imports an adapter', 'src/config/x.ts', "export { Post } from '../adapters/database/entities/post.ts';", 'foundation', 'adapter'],
    ['an activity imports a workflow', 'activities/x.ts', "export { postPublication } from '../workflows/post-publication.ts';", 'activity', 'workflow'],
    ['a workflow imports activity code', 'workflows/x.ts', "export { createActivities } from '../activities/index.ts';", 'workflow', 'activity'],
    [
      'a workflow imports a value from the signatures',
      'workflows/x.ts',
      "export { Activities } from '../activities/activity-signatures.ts';",
      'workflow',
      'activity',
    ],
    ['the domain imports the composition root', 'src/domain/posts/x.ts', "export type { Services } from '../../services.ts';", 'domain', 'composition'],
  ])('when %s, then lint fails naming both layers', async (_case, filePath, code, from, to) => {
    expect(await layerErrors(filePath, code)).toEqual([
      `boundaries/dependencies: There is no policy allowing dependencies from file of category "${from}" to file of category "${to}"`,
    ]);
  });

  it('when a product file belongs to no layer, then lint fails', async () => {
    expect(await layerErrors('src/x.ts', "export const x = 'x';")).toEqual([
      'boundaries/no-unknown-files: File does not match any file pattern and does not belong to any known element',
    ]);
  });

  it('when a file in a layer imports a file in no layer, then lint fails', async () => {
    expect(await layerErrors('src/domain/posts/x.ts', "export { default } from '../../../vitest.config.ts';")).toEqual([
      'boundaries/dependencies: There is no policy allowing dependencies from file of category "domain" to entities of module with origin "local"',
    ]);
  });

  it.each([
    [
      'the domain imports an adapter and the foundation',
      'src/domain/posts/x.ts',
      "export { Post } from '../../adapters/database/entities/post.ts';\nexport { AppError } from '../../common/errors/app-error.ts';",
    ],
    ['the domain starts a workflow', 'src/domain/posts/x.ts', "export { postPublication } from '../../../workflows/post-publication.ts';"],
    ['an activity reads a retry policy from the contracts', 'activities/x.ts', "export { socialPublish } from '../workflows/contracts/activity-options.ts';"],
    ['a workflow names the activities by their signatures', 'workflows/x.ts', "export type { Activities } from '../activities/activity-signatures.ts';"],
    ['the api imports the composition root', 'src/api/x.ts', "export { createServices } from '../services.ts';"],
  ])('when %s, then lint lets it be', async (_case, filePath, code) => {
    expect(await layerErrors(filePath, code)).toEqual([]);
  });
});
