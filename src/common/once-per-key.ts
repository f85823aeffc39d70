/**
 * `build` run once per key in this process, every later call answered with that first result. For what a process
 * derives from files that never change while it runs (openapi.yaml's routes, tools and validators): a production
 * process builds one app and never notices; a process that builds many (the test suite runs many files in one
 * process, the bench several apps) builds each only once.
 */
export function oncePerKey<K, V>(build: (key: K) => V): (key: K) => V {
  const built = new Map<K, V>();
  return (key) => {
    if (!built.has(key)) built.set(key, build(key));
    return built.get(key)!;
  };
}
