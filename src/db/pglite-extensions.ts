import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';

// The PostgreSQL extensions our migrations create, loaded into the embedded database.
export const pgliteExtensions = { pg_trgm, btree_gin };
