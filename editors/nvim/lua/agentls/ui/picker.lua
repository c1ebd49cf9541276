-- Every pick of the plugin goes through `M.select`: `vim.ui.select` with a `kind` and a
-- `format_item` (so telescope-ui-select, fzf-lua's register_ui_select, snacks' ui_select or
-- mini.pick's ui_select draw it when the user installed one), or, for the picks that show a
-- preview (sessions: the head of the transcript; queued prompts: their text), the native picker
-- of one of those plugins when it is installed, through its public API (`picker` option).
local config = require('agentls.config')

local M = {}

---@class agentls.PickOpts
---@field prompt string
---@field kind string `agentls.<what>`, for the user's UI plugins
---@field format_item fun(item: any): string
---@field preview? fun(item: any, show: fun(lines: string[])) fills a preview (`show` may come later)

--- The native pickers, in the order `picker = 'auto'` tries them: the module that says it is
--- installed, and how to show a pick with it.
M.ORDER = { 'telescope', 'fzf-lua', 'snacks', 'mini.pick' }

local adapters = {} ---@type table<string, fun(items: any[], opts: agentls.PickOpts, on_choice: fun(item: any))>

--- Whether `name`'s plugin can be used (it loads).
---@param name string
---@return boolean
function M.available(name)
  local module = name == 'snacks' and 'snacks.picker' or name
  local ok, loaded = pcall(require, module)
  return ok and loaded ~= nil and loaded ~= true
end

--- The native picker to use for a pick with a preview (nil: `vim.ui.select`), by the `picker`
--- option: 'auto' (the first of `M.ORDER` installed), one of them by name, or 'select'.
---@param available? fun(name: string): boolean (default `M.available`)
---@return string|nil
function M.choose(available)
  available = available or M.available
  local wanted = config.options.picker or 'auto'
  if wanted == 'select' then
    return nil
  end
  if wanted ~= 'auto' then
    if adapters[wanted] and available(wanted) then
      return wanted
    end
    return nil -- (config.lua warned about an unknown name; one not installed falls back quietly)
  end
  for _, name in ipairs(M.ORDER) do
    if available(name) then
      return name
    end
  end
  return nil
end

--- A `show` for the preview of one item that does nothing once another item is previewed (an
--- answer of the server that comes late must not overwrite the newer one). Scheduled: telescope
--- and fzf-lua preview the next item from a timer's callback, where buffers cannot be changed
--- nor requests sent.
local function previewer(opts, set)
  local shown = 0
  return function(item)
    shown = shown + 1
    local mine = shown
    vim.schedule(function()
      if mine ~= shown then
        return
      end
      opts.preview(item, function(lines)
        if mine == shown then
          set(lines)
        end
      end)
    end)
  end
end

local function set_buf(buf, lines)
  if vim.api.nvim_buf_is_valid(buf) then
    vim.bo[buf].modifiable = true
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  end
end

--- Pick one of `items`; `on_choice(item)` gets nil when the pick is dismissed.
---@param items any[]
---@param opts agentls.PickOpts
---@param on_choice fun(item: any)
function M.select(items, opts, on_choice)
  local native = opts.preview and M.choose()
  if native then
    return adapters[native](items, opts, on_choice)
  end
  vim.ui.select(items, {
    prompt = opts.prompt,
    kind = opts.kind,
    format_item = opts.format_item,
    -- mini.pick's ui_select shows this as the preview (other pickers ignore it).
    preview_item = opts.preview and function(item)
      local lines = { '…' }
      opts.preview(item, function(got)
        lines = got
      end)
      return lines
    end,
  }, on_choice)
end

adapters['telescope'] = function(items, opts, on_choice)
  local pickers, finders = require('telescope.pickers'), require('telescope.finders')
  local previewers, sorters = require('telescope.previewers'), require('telescope.config').values
  local actions, action_state = require('telescope.actions'), require('telescope.actions.state')
  local chosen = false
  local buf -- telescope gives each previewed entry a buffer of its own
  local show = previewer(opts, function(lines)
    set_buf(buf, lines)
  end)
  pickers
    .new({}, {
      prompt_title = opts.prompt,
      finder = finders.new_table({
        results = items,
        entry_maker = function(item)
          local text = opts.format_item(item)
          return { value = item, display = text, ordinal = text }
        end,
      }),
      sorter = sorters.generic_sorter({}),
      previewer = previewers.new_buffer_previewer({
        title = opts.prompt,
        define_preview = function(self, entry)
          buf = self.state.bufnr
          show(entry.value)
        end,
      }),
      attach_mappings = function(prompt_bufnr)
        actions.select_default:replace(function()
          local entry = action_state.get_selected_entry()
          chosen = true
          actions.close(prompt_bufnr)
          vim.schedule(function()
            on_choice(entry and entry.value)
          end)
        end)
        actions.close:enhance({
          post = function()
            if not chosen then
              chosen = true
              vim.schedule(function()
                on_choice(nil)
              end)
            end
          end,
        })
        return true
      end,
    })
    :find()
end

adapters['mini.pick'] = function(items, opts, on_choice)
  local pick = require('mini.pick')
  local shown = {}
  for i, item in ipairs(items) do
    shown[i] = { text = opts.format_item(item), index = i }
  end
  local buf_of = {}
  local show = previewer(opts, function(lines)
    set_buf(buf_of[1], lines)
  end)
  local chosen = false
  local got = pick.start({
    source = {
      name = opts.prompt,
      items = shown,
      preview = function(buf, entry)
        buf_of[1] = buf
        show(items[entry.index])
      end,
      choose = function(entry)
        chosen = true
        vim.schedule(function()
          on_choice(entry and items[entry.index])
        end)
      end,
    },
  })
  if got == nil and not chosen then
    on_choice(nil)
  end
end

adapters['snacks'] = function(items, opts, on_choice)
  local entries = {}
  for i, item in ipairs(items) do
    entries[i] = { text = opts.format_item(item), idx = i, value = item }
  end
  local done = false
  local preview -- the preview window of the picker (snacks passes it with each item)
  local show = previewer(opts, function(lines)
    preview:set_lines(lines)
  end)
  require('snacks.picker').pick({
    title = opts.prompt,
    items = entries,
    format = 'text',
    preview = function(ctx)
      preview = ctx.preview
      preview:reset()
      show(ctx.item.value)
    end,
    confirm = function(picker, item)
      done = true
      picker:close()
      vim.schedule(function()
        on_choice(item and item.value)
      end)
    end,
    on_close = function()
      if not done then
        done = true
        vim.schedule(function()
          on_choice(nil)
        end)
      end
    end,
  })
end

adapters['fzf-lua'] = function(items, opts, on_choice)
  local fzf, base = require('fzf-lua'), require('fzf-lua.previewer.builtin').base
  local lines = {}
  for i, item in ipairs(items) do
    lines[i] = ('%d\t%s'):format(i, (opts.format_item(item):gsub('[\t\n]', ' ')))
  end
  local function item_of(line)
    return line and items[tonumber(line:match('^(%d+)\t'))]
  end
  -- A previewer as fzf-lua's documentation shows (a class extending its builtin base).
  local Preview = base:extend()
  function Preview:new(o, popts, fzf_win)
    Preview.super.new(self, o, popts, fzf_win)
    setmetatable(self, Preview)
    self.show = previewer(opts, function(got)
      set_buf(self.preview_bufnr, got)
    end)
    return self
  end
  function Preview:populate_preview_buf(entry)
    local buf = self:get_tmp_buffer()
    self:set_preview_buf(buf)
    self.show(item_of(entry))
  end
  -- (A dismissed pick calls nothing here: every pick of the plugin ignores nil anyway.)
  fzf.fzf_exec(lines, {
    prompt = opts.prompt .. '> ',
    previewer = Preview,
    fzf_opts = { ['--delimiter'] = '\t', ['--with-nth'] = '2..' },
    actions = {
      ['default'] = function(selected)
        on_choice(item_of(selected and selected[1]))
      end,
    },
  })
end

return M
