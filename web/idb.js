// One IndexedDB object store of this site, opened once and again when the browser closes it.

// open() once, run() a transaction.
export const keptStore = (dbName, storeName) => ({
  db: null,
  open() {
    if (this.db) return this.db;
    this.db = new Promise((resolve, reject) => {
      if (!window.indexedDB) return reject(new Error('this browser gives the page no IndexedDB (a private window?)'));
      const r = indexedDB.open(dbName, 1);
      r.onupgradeneeded = () => r.result.createObjectStore(storeName, { keyPath: 'key' });
      r.onsuccess = () => {
        const db = r.result;
        // Closed under the page ("clear site data", another tab deleting the store):
        // the next use opens it again instead of failing until a reload.
        const forget = () => { if (this.db === opened) this.db = null; };
        db.onclose = forget;
        db.onversionchange = () => { db.close(); forget(); };
        resolve(db);
      };
      r.onerror = () => reject(r.error);
      r.onblocked = () => reject(new Error('the store is held by another tab'));
    });
    const opened = this.db;
    opened.catch(() => { if (this.db === opened) this.db = null; });
    return opened;
  },
  // One transaction; tried again once on a fresh connection when the last one
  // was closed under the page (the browser's InvalidStateError).
  run(mode, body, again = true) {
    return this.open().then((db) => new Promise((resolve, reject) => {
      const t = db.transaction(storeName, mode);
      const result = body(t.objectStore(storeName));
      t.oncomplete = () => resolve(result && 'result' in result ? result.result : undefined);
      t.onerror = () => reject(t.error);
      t.onabort = () => reject(t.error || new Error('the browser stopped the write'));
    })).catch((e) => {
      if (!again || !e || e.name !== 'InvalidStateError') throw e;
      this.db = null;
      return this.run(mode, body, false);
    });
  }
});
