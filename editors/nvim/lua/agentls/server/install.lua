-- :AgentlsInstall — agentls in a venv of its own under stdpath('data'), for a user who has none.
--
-- The source is the repository this plugin was installed from (lazy.nvim and vim.pack clone the
-- whole repository, so `pyproject.toml` is two folders above `editors/nvim`), which keeps the server
-- in step with the plugin; a plugin copied without it installs `agentls` from PyPI. The server
-- command (config.server_cmd) uses this venv when neither the project's .venv nor $PATH has agentls.
local M = {}

local MIN = { 3, 11 }

--- The managed venv.
function M.dir()
  return vim.fn.stdpath('data') .. '/agentls/venv'
end

--- The managed agentls executable (it may not exist yet).
function M.bin()
  return M.dir() .. '/bin/agentls'
end

--- What pip installs: the plugin's own checkout, else the package name.
function M.source()
  local here = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p')
  -- <repo>/editors/nvim/lua/agentls/…/install.lua: the part before the plugin's own path, wherever
  -- in it this module lives.
  local root = here:match('^(.*)/editors/nvim/lua/agentls/')
  if root and vim.fn.filereadable(root .. '/pyproject.toml') == 1 then
    return root
  end
  return 'agentls'
end

--- The first Python >= 3.11: the `python` option of setup(), then python3, python3.1x, python.
---@return string|nil python, string tried  (tried: the names looked at, for the error)
function M.python()
  local config = require('agentls.config')
  local names = { 'python3', 'python3.13', 'python3.12', 'python3.11', 'python' }
  if config.options.python then
    table.insert(names, 1, config.options.python)
  end
  local check = ('import sys; print(sys.version_info >= (%d, %d))'):format(MIN[1], MIN[2])
  for _, name in ipairs(names) do
    if vim.fn.executable(name) == 1 then
      local ok, done = pcall(function()
        return vim.system({ name, '-c', check }, { text = true }):wait(10000)
      end)
      if ok and done.code == 0 and vim.trim(done.stdout) == 'True' then
        return vim.fn.exepath(name), table.concat(names, ', ')
      end
    end
  end
  return nil, table.concat(names, ', ')
end

local function notify(msg, level)
  vim.notify('agentls: ' .. msg, level or vim.log.levels.INFO)
end

local function failed(what, done)
  local lines = vim.split(vim.trim((done.stderr or '') .. '\n' .. (done.stdout or '')), '\n')
  local tail = vim.list_slice(lines, math.max(1, #lines - 4))
  return ('%s failed (exit %d): %s'):format(what, done.code, table.concat(tail, '\n'))
end

--- Create (or update) the managed venv in the background; `on_done(ok, message)` runs at the end.
---@param on_done fun(ok: boolean, message: string)|nil
function M.install(on_done)
  local function finish(ok, message)
    M.running = false
    notify(message, ok and vim.log.levels.INFO or vim.log.levels.ERROR)
    if on_done then
      on_done(ok, message)
    end
  end
  if M.running then
    return notify('an install is already running')
  end
  local python, tried = M.python()
  if not python then
    return finish(
      false,
      (
        'needs Python %d.%d or newer, and none was found (tried %s): install one, '
        .. 'or name it: require("agentls").setup({ python = "/path/to/python3" })'
      ):format(MIN[1], MIN[2], tried)
    )
  end
  local source, dir, bin = M.source(), M.dir(), M.bin()
  M.running = true
  notify(('installing %s into %s (a minute or two)…'):format(source, dir))
  -- Each step's callback runs on the main loop (vim.schedule_wrap): it may call vim.fn and notify.
  local function step(cmd, what, next_step)
    vim.system(
      cmd,
      { text = true },
      vim.schedule_wrap(function(done)
        if done.code ~= 0 then
          return finish(false, failed(what, done))
        end
        next_step(done)
      end)
    )
  end
  step({ python, '-m', 'venv', dir }, python .. ' -m venv', function()
    local pip = { dir .. '/bin/python', '-m', 'pip', 'install', '--upgrade', '--quiet', source }
    step(pip, 'pip install ' .. source, function()
      step({ bin, '--version' }, bin .. ' --version', function(version)
        local what = vim.trim(version.stdout)
        finish(true, ('installed %s (%s); :AgentlsRestart or :Agentls to use it'):format(what, bin))
      end)
    end)
  end)
end

return M
