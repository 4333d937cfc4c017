import type { ToolContext } from './context.js';
import { deleteFileTool } from './delete_file.js';
import { editFileTool } from './edit_file.js';
import { finishTool } from './finish.js';
import { listFilesTool } from './list_files.js';
import { moveFileTool } from './move_file.js';
import { readFileTool } from './read_file.js';
import { searchTool } from './search.js';
import { validateTool } from './validate.js';
import { writeFileTool } from './write_file.js';

/** The nine tools of DESIGN.md §3, by the names the model calls them. */
export function agentTools(ctx: ToolContext) {
  return {
    list_files: listFilesTool(ctx),
    read_file: readFileTool(ctx),
    search: searchTool(ctx),
    write_file: writeFileTool(ctx),
    edit_file: editFileTool(ctx),
    delete_file: deleteFileTool(ctx),
    move_file: moveFileTool(ctx),
    validate: validateTool(ctx),
    finish: finishTool(ctx),
  };
}
