-- :checkhealth agentls — the server, its version, the config it resolves, the model — each
-- failure with what to do about it.
local config = require('agentls.config')

local M = {}

local health = vim.health

local function run(cmd, args)
  local full = vim.list_slice(cmd, 1, 1)
  vim.list_extend(full, args)
  local ok, done = pcall(function()
    return vim.system(full, { cwd = config.root(), text = true }):wait(30000)
  end)
  if not ok then
    return nil, tostring(done)
  end
  return done
end

--- :checkhealth agentls: Neovim, setup() problems, project trust, the server, its version and model.
function M.check()
  health.start('agentls')
  if vim.fn.has('nvim-0.10') == 0 then
    health.error('Neovim 0.10 or newer is required', { 'Upgrade Neovim' })
  else
    health.ok('Neovim ' .. tostring(vim.version()))
  end
  for _, problem in ipairs(config.problems or {}) do
    health.warn('setup(): ' .. problem, { 'Fix the option in your require("agentls").setup({...}) call' })
  end

  -- Project trust (agentls.server.trust): what the project has of its own, and whether it is used.
  local trust = require('agentls.server.trust')
  local found, state = trust.found(config.root()), trust.state(config.root())
  if #found == 0 then
    health.ok('project trust: the project has no config or server of its own')
  elseif state == 'trusted' then
    health.ok('project trust: trusted; its own ' .. table.concat(found, ', ') .. ' are used')
  else
    health.info(
      ('project trust: %s; its own %s are not used'):format(
        state == 'untrusted' and 'untrusted (Never)' or 'not trusted yet',
        table.concat(found, ', ')
      ) .. ' (:AgentlsTrust)'
    )
  end

  local cmd, reason = config.server_cmd()
  local configured = config.options.cmd
  if not cmd and configured then
    health.error(
      ('the server command %q is not executable'):format(tostring(configured[1])),
      { 'Fix `cmd` in require("agentls").setup({...})' }
    )
    return
  elseif not cmd and reason == config.UNTRUSTED_SERVER then
    health.error(reason, { 'Run :AgentlsTrust if you trust this project, or :AgentlsInstall' })
    return
  elseif not cmd then
    health.error(reason, {
      'Run :AgentlsInstall (a venv of its own under stdpath("data")), or pipx install agentls',
      'or set the command: require("agentls").setup({ cmd = { "/path/to/agentls", "serve" } })',
    })
    return
  end
  if vim.fn.executable(cmd[1]) == 0 then
    health.error(
      ('the server command %q is not executable'):format(cmd[1]),
      { 'Fix `cmd` in require("agentls").setup({...})' }
    )
    return
  end
  local version = run(cmd, { '--version' })
  if version and version.code == 0 then
    health.ok(('server: %s (%s)'):format(vim.trim(version.stdout .. version.stderr), cmd[1]))
  else
    health.error(
      ('%s --version failed: %s'):format(cmd[1], version and vim.trim(version.stderr) or '?'),
      { 'Reinstall agentls, or point `cmd` at a working one' }
    )
    return
  end

  -- The config the server would resolve here, with the plugin's `config` layered on top: without the
  -- project's own files while the project is not trusted, as the server is started then.
  local args = { 'config' }
  if not trust.trusted(config.root()) then
    table.insert(args, '--untrusted')
  end
  local env = nil
  if config.options.config then
    env = { AGENTLS_CONFIG_CONTENT = vim.json.encode(config.options.config) }
  end
  local ok, done = pcall(function()
    return vim
      .system(vim.list_extend(vim.list_slice(cmd, 1, 1), args), { cwd = config.root(), text = true, env = env })
      :wait(30000)
  end)
  if not ok or done.code ~= 0 then
    health.error('the agentls config is not valid: ' .. vim.trim(ok and (done.stderr .. done.stdout) or done), {
      "Fix agentls.json in the project or ~/.config/agentls/agentls.json (agentls config --sources shows each value's origin)",
    })
    return
  end
  local decoded_ok, resolved = pcall(vim.json.decode, done.stdout)
  if not decoded_ok or type(resolved) ~= 'table' then
    health.ok('config resolves')
    return
  end
  health.ok('config is valid')
  if type(resolved.model) == 'string' and resolved.model ~= '' then
    health.ok('model: ' .. resolved.model)
  else
    health.error('no model is configured', {
      'Set "model": "provider/model" in agentls.json, or pass it with setup({ config = { model = "..." } })',
    })
  end
  local client = require('agentls.server.client')
  if client.get() then
    local info = client.server_info or {}
    health.ok(('server running (client %d, %s %s)'):format(client.id, info.name or '', info.version or ''))
  else
    health.info('server not running (:Agentls starts it)')
  end
end

return M
