-- A stock Neovim 0.11 user reviews the agent's change with code lenses: no plugin, only vim.lsp.
-- Run by tests/stock/test_neovim_lens.py. The user's config refreshes the lenses as Neovim's help
-- suggests (`vim.lsp.codelens.refresh`); `vim.lsp.codelens.run()` on the hunk's line shows the
-- lenses in vim.ui.select, which picks by title from a queue here. Results go to JSON.
local user = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/nvim_user.lua')
local spec, out, save, fail = user.spec, user.out, user.save, user.fail
local lines = user.lines
out.menus = {}
user.pick_by_title(out.menus, function(item, opts)
  return opts.format_item and opts.format_item(item) or tostring(item)
end, true)
user.start({ dialogMinRead = 0 })

local function scenario()
  vim.cmd.edit(spec.hello)
  local buf = vim.api.nvim_get_current_buf()
  local client = user.attached(buf)
  if not client then
    return
  end

  local command = user.commands(client, buf)

  local function hints()
    local found = {}
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.source == 'agentls' then
        table.insert(found, { lnum = d.lnum, end_lnum = d.end_lnum, severity = d.severity, message = d.message })
      end
    end
    return found
  end

  -- What the user sees of the lenses: the virtual text Neovim draws on the lenses' line.
  local function lens_text()
    local shown = {}
    for name, ns in pairs(vim.api.nvim_get_namespaces()) do
      if name:find('codelens', 1, true) then
        for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, { details = true })) do
          local text = {}
          for _, chunk in ipairs(mark[4].virt_text or {}) do
            table.insert(text, chunk[1])
          end
          table.insert(shown, { line = mark[2], text = table.concat(text) })
        end
      end
    end
    return shown
  end

  local function refreshed_lenses(want)
    vim.lsp.codelens.refresh({ bufnr = buf })
    local got
    vim.wait(10000, function()
      got = vim.lsp.codelens.get(buf)
      return want(#got)
    end, 20)
    local titles = {}
    for _, lens in ipairs(got) do
      table.insert(titles, { line = lens.range.start.line, title = lens.command and lens.command.title or vim.NIL })
    end
    return titles
  end

  -- 1. Auto: the agent's edit lands without a dialog; its lines are marked and get lenses.
  command('agentls.mode', { 'auto' })
  out.prompt = command('agentls.prompt', { 'change it' }, 60000)
  vim.cmd('checktime')
  out.after_prompt = lines(buf)
  vim.wait(10000, function()
    return #hints() > 0
  end, 20)
  out.hints = hints()
  out.lenses = refreshed_lenses(function(n)
    return n > 0
  end)
  vim.wait(5000, function()
    return #lens_text() > 0
  end, 20)
  out.lens_text = lens_text()

  -- 2. "Diff" on the hunk's line opens the review document.
  vim.api.nvim_win_set_cursor(0, { 2, 4 })
  vim.lsp.codelens.run()
  vim.wait(10000, function()
    return vim.api.nvim_get_current_buf() ~= buf
  end, 20)
  local review = vim.api.nvim_get_current_buf()
  out.review_doc = { name = vim.api.nvim_buf_get_name(review), text = lines(review) }
  vim.cmd.buffer(buf)

  -- 3. The user edits another line (not saved), then "Undo" on the hunk: the agent's line goes back,
  -- the user's own edit stays (three-way), and the marks go.
  vim.api.nvim_buf_set_lines(buf, 4, 5, false, { 'print(greet(), "mine")' })
  vim.api.nvim_win_set_cursor(0, { 2, 4 })
  vim.lsp.codelens.run()
  if not vim.wait(10000, function()
    return lines(buf):find("'hello'", 1, true) ~= nil
  end, 20) then
    return fail('the undo never reached the buffer: ' .. lines(buf))
  end
  out.after_undo = { buffer = lines(buf), modified = vim.bo[buf].modified }
  vim.wait(10000, function()
    return #hints() == 0
  end, 20)
  out.hints_after = hints()
  out.lenses_after = refreshed_lenses(function(n)
    return n == 0
  end)

  -- 4. The review command from a mapping, with nothing left: a message, no document.
  local before = vim.api.nvim_get_current_buf()
  out.review_after = command('agentls.review', {})
  out.buffer_after_review = vim.api.nvim_get_current_buf() == before
  out.messages = vim.api.nvim_exec2('messages', { output = true }).output
end

local ok, problem = pcall(scenario)
if not ok then
  return fail(tostring(problem))
end
save()
vim.cmd('qa!')
