import { useRef, useState } from 'preact/hooks';
import { formatBytes } from '../../lib/format.ts';

type FilePickerProps = {
  files: readonly File[];
  onChange: (files: File[]) => void;
  /** The server's limits, said under the drop zone. */
  maxFiles?: number;
  maxBytes?: number;
};

/** Files for the task's task/ folder: picked or dropped, listed with their size, each removable. */
export function FilePicker({ files, onChange, maxFiles, maxBytes }: FilePickerProps) {
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const add = (list: FileList | null): void => {
    if (!list) return;
    const names = new Set(files.map((file) => file.name));
    onChange([...files, ...Array.from(list).filter((file) => !names.has(file.name))]);
  };
  return (
    <div class="files">
      <div
        class={over ? 'dropzone dropzone-over' : 'dropzone'}
        onDragOver={(event) => {
          event.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(event) => {
          event.preventDefault();
          setOver(false);
          add(event.dataTransfer?.files ?? null);
        }}
      >
        <input
          ref={input}
          type="file"
          multiple
          class="visually-hidden"
          id="newtask-files"
          onChange={(event) => {
            add(event.currentTarget.files);
            event.currentTarget.value = '';
          }}
          data-testid="newtask-files"
        />
        <label for="newtask-files" class="dropzone-label">
          <strong>Choose files</strong> or drop them here
        </label>
        <div class="small muted">
          They go into the task's <code>task/</code> folder before it starts
          {maxFiles ? `; up to ${maxFiles} files` : ''}
          {maxBytes ? `, ${formatBytes(maxBytes)} in all` : ''}.
        </div>
      </div>
      {files.length > 0 ? (
        <ul class="file-list" data-testid="newtask-file-list">
          {files.map((file, index) => (
            <li key={file.name} class="file-row">
              <code class="mono">{file.name}</code>
              <span class="small muted">{formatBytes(file.size)}</span>
              <button
                type="button"
                class="btn btn-sm btn-ghost"
                onClick={() => onChange(files.filter((_, at) => at !== index))}
                data-testid={`newtask-file-remove-${index}`}
                aria-label={`Remove ${file.name}`}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
