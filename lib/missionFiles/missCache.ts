/**
 * Keys found missing, remembered per function instance for a few seconds: a basemap asks for hundreds of
 * tiles outside its pyramid, and each repeat is then answered 404 without a storage call. Short, so a file
 * copied in later is served within `ttlMs`; bounded, so a scan of made-up names cannot grow it.
 */
export class MissCache {
  private readonly misses = new Map<string, number>();

  constructor(
    private readonly ttlMs = 10_000,
    private readonly maxEntries = 10_000,
  ) {}

  has(key: string, now = Date.now()): boolean {
    const until = this.misses.get(key);
    if (until === undefined) return false;
    if (until > now) return true;
    this.misses.delete(key);
    return false;
  }

  add(key: string, now = Date.now()): void {
    if (this.misses.size >= this.maxEntries) this.misses.clear();
    this.misses.set(key, now + this.ttlMs);
  }
}
