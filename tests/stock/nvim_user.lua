-- What the stock-Neovim scenarios share: a user of Neovim 0.11 with no plugin, only vim.lsp and the
-- configuration a user writes for agentls. A scenario loads it with
--   local user = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/nvim_user.lua')
-- and reads its spec (AGENTLS_SCENARIO, written by the pytest side), records what it saw in
-- `user.out` and ends with `user.save()` (or `user.fail(why)`).
local M = {}

M.spec = vim.json.decode(table.concat(vim.fn.readfile(vim.env.AGENTLS_SCENARIO), '\n'))
M.out = {}

function M.save()
  vim.fn.writefile({ vim.json.encode(M.out) }, M.spec.result)
end

function M.fail(message)
  M.out.error = message
  M.save()
  vim.cmd('qa!')
end

--- A buffer's text as a file holds it.
function M.lines(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n') .. '\n'
end

--- A file's text on disk.
function M.disk(path)
  return table.concat(vim.fn.readfile(path), '\n') .. '\n'
end

--- Neovim's own vim.ui.select answered from the spec's `picks`, in order, by title (nil: Escape).
--- Each menu goes to `menus` as {titles, picked} (and the prompt with `with_prompt`); `title_of`
--- names an item as the user reads it.
function M.pick_by_title(menus, title_of, with_prompt)
  local picks = vim.deepcopy(M.spec.picks)
  vim.ui.select = function(items, opts, on_choice)
    local titles = {}
    for _, item in ipairs(items) do
      table.insert(titles, title_of(item, opts) or vim.NIL)
    end
    local want = table.remove(picks, 1)
    table.insert(menus, { prompt = with_prompt and opts.prompt or nil, titles = titles, picked = want or vim.NIL })
    for i, title in ipairs(titles) do
      if title == want then
        return on_choice(items[i], i)
      end
    end
    on_choice(nil) -- Escape
  end
end

--- A code action's title, whichever shape Neovim hands the menu.
function M.action_title(item)
  return item.title or (item.action and item.action.title)
end

--- The user's configuration: agentls for Python files, with `init_options` besides the spec's config.
function M.start(init_options)
  vim.lsp.config('agentls', {
    cmd = M.spec.cmd,
    cmd_env = M.spec.env,
    filetypes = { 'python' },
    root_markers = { 'agentls.json', '.git' },
    init_options = vim.tbl_extend('force', { config = M.spec.config }, init_options),
  })
  vim.lsp.enable('agentls')
end

--- The agentls client once it has attached to `buf` and answered `initialize`; nil (the scenario
--- has failed, with `fail`) when it has not within 20 s.
function M.attached(buf)
  local client
  if vim.wait(20000, function()
    client = vim.lsp.get_clients({ bufnr = buf, name = 'agentls' })[1]
    return client ~= nil and client.initialized
  end, 20) then
    return client
  end
  M.fail('agentls never attached')
  return nil
end

--- A function that runs one of the server's commands as the user's `:lua` would
--- (workspace/executeCommand on `buf`): `command(name, arguments, timeout)` returns the result
--- and the error's message (nil when none); a command that never answers raises.
function M.commands(client, buf)
  return function(name, arguments, timeout)
    local response = client:request_sync('workspace/executeCommand', { command = name, arguments = arguments }, timeout or 30000, buf)
    if not response then
      error(name .. ' never answered')
    end
    return response.result, response.err and response.err.message or nil
  end
end

return M
