-- A stock Neovim 0.11 user of agentls: vim.lsp.config + vim.lsp.enable, no plugin.
-- Run by tests/stock/test_neovim.py: nvim --headless --clean -c 'luafile nvim_scenario.lua'.
-- The only stand-in for the user is vim.ui.select (where stock Neovim asks showMessageRequest),
-- answered from a queue, the way a UI plugin would. Results go to a JSON file for pytest.
local user = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/nvim_user.lua')
local spec, out, save, fail = user.spec, user.out, user.save, user.fail
local lines, disk = user.lines, user.disk
out.steps, out.conflicts, out.dialogs = {}, {}, {}

-- Any "file changed" situation Neovim would warn or prompt about (W11, W12, W16, deleted).
-- A silent autoread reload does not fire this event.
vim.api.nvim_create_autocmd('FileChangedShell', {
  callback = function(ev)
    table.insert(out.conflicts, { file = ev.file, reason = vim.v.fcs_reason })
    vim.v.fcs_choice = ''
  end,
})

local answers = vim.deepcopy(spec.answers)
vim.ui.select = function(items, opts, on_choice)
  local want = table.remove(answers, 1)
  table.insert(out.dialogs, { prompt = opts.prompt, answer = want or vim.NIL })
  for _, item in ipairs(items) do
    if want ~= nil and want ~= vim.NIL and item.title == want then
      return on_choice(item)
    end
  end
  on_choice(nil) -- Escape
end

-- The stand-in answers the moment it is asked; the server's guard against typed-ahead answers
-- (which would ask again) is for a person, tested in test_neovim_interactive.py.
user.start({ dialogMinRead = 0 })

local function scenario()
  vim.cmd.edit(spec.unsaved)
  local unsaved_buf = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(unsaved_buf, 0, -1, false, { "print('only in the buffer')" })
  vim.cmd.edit(spec.hello)
  local buf = vim.api.nvim_get_current_buf()
  local original = lines(buf)

  local client = user.attached(buf)
  if not client then
    return
  end
  out.server_pid = client.rpc and client.rpc.pid or vim.NIL

  -- Run a command the stock way (client:request, which exec_cmd uses) and wait for its answer.
  local function run(arguments, timeout)
    local done, result, err
    local ok, id = client:request('workspace/executeCommand', {
      command = 'agentls.prompt',
      arguments = arguments,
    }, function(e, r)
      done, err, result = true, e, r
    end, buf)
    assert(ok, 'request failed to send')
    return id, function()
      vim.wait(timeout or 30000, function()
        return done
      end, 20)
      return done, result, err
    end
  end

  -- 1. One turn: read an unsaved buffer, then two edits of the same open, unmodified buffer.
  local _, wait = run({ 'read unsaved.py, then change hello twice' })
  local done, result, err = wait()
  if not done then
    return fail('the first prompt never answered')
  end
  table.insert(out.steps, { name = 'edits', result = result or vim.NIL, error = err and err.message or vim.NIL })
  local before_checktime = lines(buf)
  vim.cmd('checktime') -- what focus, a shell command or the user's autocmd do
  out.edits = {
    before_checktime = before_checktime,
    buffer = lines(buf),
    disk = disk(spec.hello),
    modified = vim.bo[buf].modified,
  }
  vim.cmd('silent undo')
  out.edits.after_undo = lines(buf)
  vim.cmd('silent redo')
  -- The next edit and save by the user: no "changed since reading" question.
  vim.api.nvim_buf_set_lines(buf, -1, -1, false, { '# the user was here' })
  vim.cmd('silent write')
  out.edits.after_write = disk(spec.hello)
  out.edits.warning = vim.v.warningmsg

  -- 2. A permission dismissed with Escape: the tool does not run and the turn ends.
  _, wait = run({ 'run a command' })
  done, result, err = wait()
  table.insert(out.steps, { name = 'dismissed', done = done, error = err and err.message or vim.NIL })

  -- 3. $/cancelRequest on the prompt command stops the turn; the next prompt runs at once.
  local id
  id, wait = run({ 'think for a long time' })
  vim.wait(10000, function()
    return vim.fn.filereadable(spec.model_busy) == 1
  end, 20)
  local started = vim.uv.hrtime()
  client:cancel_request(id) -- Neovim drops the answer of a request it cancelled
  table.insert(out.steps, { name = 'cancelled' })
  _, wait = run({ 'and now?' })
  done, result = wait(10000)
  table.insert(out.steps, {
    name = 'after cancel',
    done = done,
    text = result and result.text or vim.NIL,
    ms = (vim.uv.hrtime() - started) / 1e6,
  })

  -- 4. A turn longer than a request should wait: answered at once, the answer comes as a message.
  _, wait = run({ { text = 'a long job', async = true } })
  done, result = wait(5000)
  table.insert(out.steps, { name = 'async', done = done, result = result or vim.NIL })
  vim.wait(20000, function()
    return vim.api.nvim_exec2('messages', { output = true }).output:find('the long job is done', 1, true) ~= nil
  end, 50)
  out.messages = vim.api.nvim_exec2('messages', { output = true }).output
  local session = out.steps[1].result.sessionID
  local history = client:request_sync('agent/session/messages', { sessionID = session }, 10000, buf)
  out.errors = {}
  for _, message in ipairs(history and history.result and history.result.messages or {}) do
    table.insert(out.errors, message.info.error and message.info.error.name or vim.NIL)
  end
end

local ok, problem = pcall(scenario)
if not ok then
  return fail(tostring(problem))
end
save()
vim.cmd('qa!')
