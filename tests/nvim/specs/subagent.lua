-- A sub-agent in the chat: the model hands a job to the general subagent, whose edit asks. The
-- permission prompt names the task; the task's fold shows the child's steps live (while the child
-- waits for the answer, and when it is done), folded like a tool's output.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()

local function task_row(buf)
  for i, line in ipairs(T.lines(buf)) do
    if line:find('⚙ task: fix the greeting', 1, true) then
      return i
    end
  end
end

local asked = {}
local WAITING = '    ↳ ⟳ edit: hello.py'
vim.ui.select = function(items, opts, on_choice)
  local seen = { prompt = opts.prompt }
  table.insert(asked, seen)
  vim.schedule(function()
    -- The child waits for this answer: its step shows under the task line meanwhile (at the next
    -- frame of the transcript).
    local buf = T.transcript()
    T.wait(function()
      local row = task_row(buf)
      seen.below = row and { T.lines(buf)[row + 1], T.lines(buf)[row + 2] }
      return seen.below and seen.below[2] == WAITING
    end, 'the waiting child step under the task line, in:\n' .. T.text(buf), 5000)
    on_choice('Allow once', 1)
  end)
end

local session = T.open()
T.send('fix the greeting with a sub-agent')
T.wait(function()
  return T.text(T.transcript()):find('The sub-agent fixed it.', 1, true)
end, 'the final answer')
T.idle(session)

T.eq(1, #asked, 'permission dialogs')
T.eq('agentls wants permission for edit: Edit hello.py (asked by the task "fix the greeting", @general)',
  asked[1].prompt, 'the prompt names the task')
-- While the child waited for the answer, its step was already under the task line.
T.eq({ '      Editing hello.py.', WAITING }, asked[1].below, 'the child steps while it waits')

local buf = T.transcript()
local row = T.ok(task_row(buf), 'a task line')
local lines = T.lines(buf)
T.eq({ '      Editing hello.py.', '    ↳ ✓ edit: hello.py', '      Fixed the greeting.' },
  { lines[row + 1], lines[row + 2], lines[row + 3] }, 'the child steps in the task block')
-- The child's text is not in the parent's own transcript outside the task block.
local count = select(2, T.text(buf):gsub('Editing hello%.py%.', ''))
T.eq(1, count, 'the child text once, in the fold')

-- Folded: the transcript window shows the task line, and its fold hides the steps.
local win = vim.fn.bufwinid(buf)
T.ok(win ~= -1, 'the transcript in a window')
vim.api.nvim_win_call(win, function()
  T.eq(-1, vim.fn.foldclosed(row), 'the task line is not folded away')
  T.eq(row + 1, vim.fn.foldclosed(row + 1), 'the steps are folded')
end)
T.eq({ "print('bye')" }, vim.fn.readfile('hello.py'), 'the child edited the file')
T.finish()
