// Entry script of the playground.
import {initPlayground} from "../playground.js";

initPlayground();
