-- The review workflow in one Neovim: the agent and model pickers, a visual selection asked about,
-- :AgentlsFix on another language server's diagnostic, that server's report after the agent's edit,
-- :AgentlsDiff file by file, :AgentlsRevert and :AgentlsUnrevert. What reached the model is checked
-- by the Python side (test_review_workflow).
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()

local choose = {} -- what vim.ui.select answers, by prompt: a function(items) -> item
local asked = {}
vim.ui.select = function(items, opts, on_choice)
  table.insert(asked, opts.prompt)
  local pick = opts.kind == 'agentls.permission' and function()
    return 'Always allow'
  end or assert(choose[opts.prompt], 'unexpected dialog: ' .. opts.prompt)
  vim.schedule(function()
    on_choice(pick(items))
  end)
end
local function named(field, value)
  return function(items)
    for _, item in ipairs(items) do
      if not item.follow and (field and item[field] or item) == value then
        return item
      end
    end
    error(('no %s in %s'):format(value, vim.inspect(items)))
  end
end

-- Another language server: it reports on calc.py, and re-checks every file the agent saves.
local pyright = vim.api.nvim_create_namespace('fake-pyright')
local function check(buf)
  local found = {}
  for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local col = line:find('a + c', 1, true)
    if col then
      table.insert(found, { lnum = i - 1, col = col + 3, severity = vim.diagnostic.severity.ERROR,
        message = '"c" is not defined', source = 'fake-pyright' })
    end
  end
  vim.diagnostic.set(pyright, buf, found)
end
vim.api.nvim_create_autocmd('BufWritePost', {
  callback = function(ev)
    vim.schedule(function() -- as a real server does: after the write, not inside it
      check(ev.buf)
    end)
  end,
})

vim.cmd('edit calc.py')
local calc = vim.api.nvim_get_current_buf()
vim.cmd('edit hello.py')
local hello = vim.api.nvim_get_current_buf()
vim.cmd('buffer ' .. calc)

-- 1. The plan agent and the second model, then a question on lines 2-3 selected in visual mode.
choose['agentls agent'] = named('name', 'plan')
vim.cmd('AgentlsAgent')
T.wait(function()
  return T.chat().agent == 'plan'
end, 'the agent picker')
choose['agentls model'] = named('name', 'fake/m2')
vim.cmd('AgentlsModel')
T.wait(function()
  return T.chat().model == 'fake/m2'
end, 'the model picker')
T.wait(function()
  return T.chat().session_id
end, 'the session')
local session = T.chat().session_id
T.ok(T.winbar():find('plan · fake/m2', 1, true), 'the choice in the winbar: ' .. T.winbar())

vim.api.nvim_set_current_win(vim.fn.bufwinid(calc))
vim.api.nvim_feedkeys(vim.keycode('2GVj:AgentlsAsk what do these lines do?<CR>'), 'mx', false)
T.wait(function()
  return T.text(T.transcript()):find('They subtract.', 1, true)
end, 'the answer to the selection')
T.idle(session)
T.ok(T.text(T.transcript()):find('@calc.py#L2-3 what do these lines do?', 1, true), 'the asked prompt')

-- 2. :AgentlsFix with the build agent and the first model on a diagnostic of fake-pyright.
choose['agentls agent'] = named('name', 'build')
vim.cmd('AgentlsAgent')
choose['agentls model'] = named('name', 'fake/m')
vim.cmd('AgentlsModel')
T.wait(function()
  return T.chat().agent == 'build' and T.chat().model == 'fake/m'
end, 'the pickers, again')
vim.diagnostic.set(pyright, calc, { { lnum = 1, col = 11, severity = vim.diagnostic.severity.WARN,
  message = 'subtracts where add() should add', source = 'fake-pyright' } })
vim.api.nvim_set_current_win(vim.fn.bufwinid(calc))
vim.cmd('AgentlsFix')
T.wait(function()
  return T.text(T.transcript()):find('Fixed, but c', 1, true)
end, 'the end of the fix turn')
T.idle(session)
T.eq('    return a + c', T.lines(calc)[2], 'calc.py edited')
T.eq("print('bye')", T.lines(hello)[1], 'hello.py edited')
T.eq(1, #vim.diagnostic.get(calc, { namespace = pyright }), 'the error the edit introduced')

-- 3. :AgentlsDiff: a tab with the session's changes, ]f to the next file.
local before_tabs = #vim.api.nvim_list_tabpages()
vim.cmd('AgentlsDiff')
T.wait(function()
  return #vim.api.nvim_list_tabpages() > before_tabs
end, 'the diff tab')
local function shown()
  local wins = vim.api.nvim_tabpage_list_wins(0)
  local out = { label = vim.wo[wins[1]].winbar, sides = {} }
  for _, win in ipairs(wins) do
    T.eq(true, vim.wo[win].diff, 'diff mode')
    table.insert(out.sides, T.lines(vim.api.nvim_win_get_buf(win)))
  end
  return out
end
local first = shown()
T.ok(first.label:find('1/2 calc.py +1 -1', 1, true), 'the first file: ' .. first.label)
T.eq({ 'def add(a, b):', '    return a - b' }, vim.list_slice(first.sides[1], 1, 2), 'calc.py before')
T.eq({ 'def add(a, b):', '    return a + c' }, vim.list_slice(first.sides[2], 1, 2), 'calc.py after')
vim.api.nvim_feedkeys(']f', 'mx', false)
local second = shown()
T.ok(second.label:find('2/2 hello.py +1 -1', 1, true), 'the second file: ' .. second.label)
T.eq({ { "print('hello')" }, { "print('bye')" } }, second.sides, 'hello.py before and after')
-- ]f past the last file wraps to the first, [f goes back (and wraps the other way).
vim.api.nvim_feedkeys(']f', 'mx', false)
T.ok(shown().label:find('1/2 calc.py', 1, true), ']f from the last file: ' .. shown().label)
vim.api.nvim_feedkeys('[f', 'mx', false)
T.ok(shown().label:find('2/2 hello.py', 1, true), '[f from the first file: ' .. shown().label)
vim.api.nvim_feedkeys('[f', 'mx', false)
local again = shown()
T.ok(again.label:find('1/2 calc.py', 1, true), '[f: ' .. again.label)
T.eq(first.sides, again.sides, 'calc.py shown as the first time')
T.eq(2, #vim.api.nvim_tabpage_list_wins(0), 'two windows in the diff tab')
-- The buffers of the files shown before are gone: only the two on screen are left.
local diff_bufs = vim.tbl_filter(function(b)
  return vim.api.nvim_buf_get_name(b):find('agentls://[ab][ef][ft]', 1) ~= nil
end, vim.api.nvim_list_bufs())
T.eq(2, #diff_bufs, 'diff buffers: ' .. vim.inspect(vim.tbl_map(vim.api.nvim_buf_get_name, diff_bufs)))
vim.cmd('tabclose')

-- 4. Revert from the fix prompt on: both files go back (buffer and disk), the transcript says so.
choose['Revert the changes from this prompt on'] = function(items)
  T.eq(2, #items, 'the prompts to revert to')
  for _, item in ipairs(items) do
    if item.text:find('^Fix these problems') then
      return item
    end
  end
end
vim.cmd('AgentlsRevert')
T.wait(function()
  return T.lines(calc)[2] == '    return a - b' and T.lines(hello)[1] == "print('hello')"
end, 'the files to go back')
T.eq({ "print('hello')" }, vim.fn.readfile('hello.py'), 'hello.py on disk after the revert')
T.eq('    return a - b', vim.fn.readfile('calc.py')[2], 'calc.py on disk after the revert')
T.wait(function()
  return T.text(T.transcript()):find('⟲ reverted from here', 1, true)
end, 'the revert mark')
local text = T.text(T.transcript())
T.ok(text:find('⟲ reverted from here', 1, true) < text:find('Fix these problems', 1, true),
  'the mark above the reverted prompt:\n' .. text)

vim.cmd('AgentlsUnrevert')
T.wait(function()
  return T.lines(calc)[2] == '    return a + c' and T.lines(hello)[1] == "print('bye')"
end, 'the files to come back')
T.eq({ "print('bye')" }, vim.fn.readfile('hello.py'), 'hello.py on disk after the unrevert')
T.wait(function()
  return not T.text(T.transcript()):find('reverted from here', 1, true)
end, 'the revert mark to go')
for _, buf in ipairs({ calc, hello }) do
  T.eq(false, vim.bo[buf].modified, 'saved: ' .. vim.api.nvim_buf_get_name(buf))
end
T.finish()
