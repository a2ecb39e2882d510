// quad.vert - a rectangle in window pixels, with texture coordinates; used
// for the video picture and for the HUD's text and panels.
#version 330 core
layout(location = 0) in vec2 position; // window pixels, origin top left
layout(location = 1) in vec2 texcoord;
uniform vec2 window_size;              // drawable pixels
out vec2 uv;

void main()
{
    vec2 ndc = position / window_size * 2.0 - 1.0;
    gl_Position = vec4(ndc.x, -ndc.y, 0.0, 1.0);
    uv = texcoord;
}
