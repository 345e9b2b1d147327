/**
 * Lists as async iterators (GET /baskets, GET /orders, GET /library). A page answer carries its items and,
 * when more follow, `NextCursor`; the next page is asked for with `?cursor=`, one page at a time as the loop
 * asks for more.
 */
const nextCursorOf = (page: object): string | undefined => {
  const cursor = (page as { NextCursor?: unknown }).NextCursor;
  return typeof cursor === 'string' && cursor !== '' ? cursor : undefined;
};

export class Paginated<Item, Page extends object> implements AsyncIterable<Item> {
  readonly #fetchPage: (cursor: string | undefined) => Promise<Page>;
  readonly #itemsOf: (page: Page) => readonly Item[];

  constructor(fetchPage: (cursor: string | undefined) => Promise<Page>, itemsOf: (page: Page) => readonly Item[]) {
    this.#fetchPage = fetchPage;
    this.#itemsOf = itemsOf;
  }

  /** Every page, fetched one at a time as the loop asks for it. */
  async *pages(): AsyncGenerator<Page, void, undefined> {
    const seen = new Set<string>();
    let cursor: string | undefined;
    do {
      const page = await this.#fetchPage(cursor);
      yield page;
      cursor = nextCursorOf(page);
      if (cursor !== undefined && seen.has(cursor)) throw new Error(`the service repeated the cursor ${cursor}`);
      if (cursor !== undefined) seen.add(cursor);
    } while (cursor !== undefined);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.pages()) yield* this.#itemsOf(page);
  }

  /** The first page only (its `NextCursor` says whether more follow). */
  firstPage(): Promise<Page> {
    return this.#fetchPage(undefined);
  }

  /** Every item of every page, in one array. */
  async toArray(): Promise<Item[]> {
    const items: Item[] = [];
    for await (const item of this) items.push(item);
    return items;
  }
}
