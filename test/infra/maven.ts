import { existsSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toolchainCacheDir } from '../../src/local/embedded/cache-dir.ts';
import { runCommand } from '../../src/local/embedded/run-command.ts';

const dependencyPlugin = 'org.apache.maven.plugins:maven-dependency-plugin:3.8.1';

export type MavenArtifact = { groupId: string; artifactId: string; version: string; classifier?: string };

/**
 * Copies a Maven Central artifact (with its runtime dependencies when `transitive`) into `directory`, once; later
 * calls return at once. Downloads into a staging directory and renames it, so an interrupted fetch is redone.
 */
export async function fetchMavenArtifact(artifact: MavenArtifact, directory: string, options: { transitive: boolean }): Promise<void> {
  if (existsSync(directory)) return;
  const staging = `${directory}.partial-${process.pid}`;
  const work = mkdtempSync(join(tmpdir(), 'maven-fetch-'));
  const common = ['-B', '-q', '-Dstyle.color=never', `-Dmaven.repo.local=${join(toolchainCacheDir(), 'm2')}`, `-DoutputDirectory=${staging}`];
  try {
    if (options.transitive) {
      writeFileSync(join(work, 'pom.xml'), pomDependingOn(artifact));
      await runCommand('mvn', [...common, '-f', join(work, 'pom.xml'), `${dependencyPlugin}:copy-dependencies`, '-DincludeScope=runtime']);
    } else {
      const coordinates = [artifact.groupId, artifact.artifactId, artifact.version, 'jar', artifact.classifier].filter(Boolean).join(':');
      await runCommand('mvn', [...common, `${dependencyPlugin}:copy`, `-Dartifact=${coordinates}`], { cwd: work });
    }
    renameSync(staging, directory);
  } finally {
    rmSync(work, { recursive: true, force: true });
    rmSync(staging, { recursive: true, force: true });
  }
}

function pomDependingOn(artifact: MavenArtifact): string {
  return `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local</groupId><artifactId>fetch</artifactId><version>1</version><packaging>pom</packaging>
  <dependencies><dependency>
    <groupId>${artifact.groupId}</groupId><artifactId>${artifact.artifactId}</artifactId><version>${artifact.version}</version>
  </dependency></dependencies>
</project>`;
}
