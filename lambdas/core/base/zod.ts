// The Lambdas' schemas use zod's mini build: about 70 KB smaller per bundle than the classic API, whose
// schemas carry JSON-schema code trainwatch never calls. The mini build ships no messages of its own;
// importing this module (for its effect) loads the English ones once, so every problem says what was
// expected. Only `config` and one locale are imported, so the bundler keeps the rest of zod out.
import { config } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

config(en());
