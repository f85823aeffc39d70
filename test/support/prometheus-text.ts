/** A scrape in Prometheus' text format, read the way a test needs it: types by metric name, sample values by series. */
export type Scrape = {
  text: string;
  /** `# TYPE` of each metric family. */
  types: Map<string, string>;
  /** The value of the sample `name` whose labels include `labels`; the sum when several series match. */
  value(name: string, labels?: Record<string, string>): number;
  /** The label sets of a sample name's series. */
  series(name: string): Array<Record<string, string>>;
};

export async function scrape(url: string): Promise<Scrape> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
  if (!response.headers.get('content-type')?.startsWith('text/plain')) throw new Error(`GET ${url} is not Prometheus text`);
  return readScrape(await response.text());
}

function readScrape(text: string): Scrape {
  const types = new Map<string, string>();
  const samples: Array<{ name: string; labels: Record<string, string>; value: number }> = [];
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1]!, type[2]!);
    if (line === '' || line.startsWith('#')) continue;
    const sample = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!sample) throw new Error(`Not a sample line: ${line}`);
    const labels = Object.fromEntries([...(sample[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((match) => [match[1]!, match[2]!]));
    samples.push({ name: sample[1]!, labels, value: Number(sample[3]) });
  }
  const matching = (name: string, labels: Record<string, string>) =>
    samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
  return {
    text,
    types,
    value: (name, labels = {}) => matching(name, labels).reduce((sum, sample) => sum + sample.value, 0),
    series: (name) => matching(name, {}).map((sample) => sample.labels),
  };
}
