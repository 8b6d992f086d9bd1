import path from 'node:path';
import type { FileStorage } from '../kernel/file-storage.ts';
import { DiskStorage } from './disk-storage.ts';
import { S3Storage } from './s3-storage.ts';

/** The storage settings of the app's config (src/config.ts; README's settings table). */
export interface FileStorageSettings {
  FILE_STORAGE: 'disk' | 's3';
  DATA_DIR: string;
  FILES_DIR?: string;
  S3_ENDPOINT?: string;
  S3_BUCKET?: string;
  S3_REGION: string;
  S3_ACCESS_KEY_ID?: string;
  S3_SECRET_ACCESS_KEY?: string;
  S3_FORCE_PATH_STYLE: boolean;
}

/** The storage of attachment files the settings choose. */
export function fileStorageOf(settings: FileStorageSettings): FileStorage {
  if (settings.FILE_STORAGE === 's3') {
    if (!settings.S3_BUCKET) throw new Error('invalid configuration: S3_BUCKET: required with FILE_STORAGE=s3');
    return new S3Storage({
      endpoint: settings.S3_ENDPOINT,
      bucket: settings.S3_BUCKET,
      region: settings.S3_REGION,
      accessKeyId: settings.S3_ACCESS_KEY_ID,
      secretAccessKey: settings.S3_SECRET_ACCESS_KEY,
      forcePathStyle: settings.S3_FORCE_PATH_STYLE,
    });
  }
  return new DiskStorage(path.resolve(settings.FILES_DIR ?? path.join(settings.DATA_DIR, 'files')));
}
