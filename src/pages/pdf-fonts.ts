// The fonts every PDF of Motu is set in: DejaVu Sans, embedded (subset). The PDF's standard fonts know only Latin-1,
// which garbles Tahitian (ʻokina, macrons) and other text customers and merchants write.
import { createRequire } from 'node:module';
import path from 'node:path';

const FONT_DIR = path.join(path.dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');
export const REGULAR_FONT = path.join(FONT_DIR, 'DejaVuSans.ttf');
export const BOLD_FONT = path.join(FONT_DIR, 'DejaVuSans-Bold.ttf');
