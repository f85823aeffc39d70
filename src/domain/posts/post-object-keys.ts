import type { EntityManager } from '@mikro-orm/postgresql';

/** Every stored object of the posts matched (current images, artwork, every version's, videos), each once. */
export async function postObjectKeys(em: EntityManager, where: { postId: string } | { projectId: string }): Promise<string[]> {
  const [column, value] = 'postId' in where ? ['p.id', where.postId] : ['p.project_id', where.projectId];
  const rows = await em.execute<Array<{ key: string }>>(
    `select p.image_key as key from posts p where ${column} = ? and p.image_key is not null
     union select p.artwork_key from posts p where ${column} = ? and p.artwork_key is not null
     union select v.image_key from post_versions v join posts p on p.id = v.post_id where ${column} = ?
     union select v.artwork_key from post_versions v join posts p on p.id = v.post_id where ${column} = ? and v.artwork_key is not null
     union select j.video_key from video_jobs j join posts p on p.id = j.post_id where ${column} = ? and j.video_key is not null`,
    [value, value, value, value, value],
  );
  return rows.map((row) => row.key);
}
