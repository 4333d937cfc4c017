// tsc compiles .ts only; the prompt and tool-description .txt files must sit next to their code in dist/.
import { cpSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

function copy(dir) {
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) copy(file);
    else if (name.endsWith('.txt')) cpSync(file, path.join('dist', path.relative('src', file)));
  }
}
copy('src');
